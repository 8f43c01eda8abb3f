package org.apache.seatunnel.shade.com.google.common.util.concurrent;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Stub of the shaded Guava builder: only the name format and the daemon flag. */
public final class ThreadFactoryBuilder {
    private String nameFormat = "thread-%d";
    private boolean daemon;

    public ThreadFactoryBuilder setNameFormat(String format) {
        this.nameFormat = format;
        return this;
    }

    public ThreadFactoryBuilder setDaemon(boolean on) {
        this.daemon = on;
        return this;
    }

    public ThreadFactory build() {
        String format = nameFormat;
        boolean isDaemon = daemon;
        AtomicInteger count = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, String.format(format, count.getAndIncrement()));
            t.setDaemon(isDaemon);
            return t;
        };
    }
}
