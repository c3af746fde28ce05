package io.delayq.service;

/** Placeholder until the service lands. */
public final class DelayqApplication {
    public static void main(String[] args) {
    }
}
