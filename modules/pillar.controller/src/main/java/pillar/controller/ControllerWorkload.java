package pillar.controller;

import pillar.api.server.WorkloadServer;
import pillar.controller.reconcile.PillarControllers;

/**
 * The running controller: its CSI and health server and its reconcile loops. Closing it stops
 * both; the Kubernetes and agent clients belong to whoever started it.
 */
public final class ControllerWorkload implements AutoCloseable {
    private final WorkloadServer server;
    private final PillarControllers controllers;

    ControllerWorkload(WorkloadServer server, PillarControllers controllers) {
        this.server = server;
        this.controllers = controllers;
    }

    public WorkloadServer server() {
        return server;
    }

    /** True once every informer has synced (the readiness check {@code informers-synced}). */
    public boolean ready() {
        return controllers.ready();
    }

    @Override
    public void close() {
        try {
            controllers.close();
        } finally {
            server.close();
        }
    }
}
