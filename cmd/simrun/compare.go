package main

import "io"

func compareCmd(args []string, stdout, stderr io.Writer) int { return 0 }
