#!/bin/sh
# run.sh [TriggerPeer flags]: compile and run the JDK peer; prints Go
# benchmark-format lines. Needs javac (OpenJDK 17).
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
javac -d "$dir" "$(dirname "$0")/TriggerPeer.java"
exec java -Xms512m -Xmx512m -XX:+UseG1GC -cp "$dir" TriggerPeer "$@"
