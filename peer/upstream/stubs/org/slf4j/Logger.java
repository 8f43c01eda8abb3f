package org.slf4j;

/** Stub of SLF4J's logger: messages go to stderr only when -Dckptsim.log=true. */
public final class Logger {
    private static final boolean ON = Boolean.getBoolean("ckptsim.log");
    private final String name;

    Logger(String name) {
        this.name = name;
    }

    public void debug(String msg, Object... args) {
        emit("DEBUG", msg, args);
    }

    public void info(String msg, Object... args) {
        emit("INFO", msg, args);
    }

    public void warn(String msg, Object... args) {
        emit("WARN", msg, args);
    }

    public void error(String msg, Object... args) {
        emit("ERROR", msg, args);
    }

    private void emit(String level, String msg, Object[] args) {
        if (ON) {
            System.err.println(level + " " + name + ": " + msg + " " + java.util.Arrays.toString(args));
        }
    }
}
