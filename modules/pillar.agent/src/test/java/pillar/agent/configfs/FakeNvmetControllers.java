package pillar.agent.configfs;

import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import pillar.agent.configfs.FakeNvmetPorts.Port;
import pillar.agent.configfs.FakeNvmetSubsystems.Subsystem;

/**
 * The controllers hosts hold on {@link FakeNvmet}, as kernel 6.1 treats them: a connect is accepted
 * only through a listening port that links the subsystem, from a host the subsystem admits
 * ({@code attr_allow_any_host} or an {@code allowed_hosts} link); removing a port's link to a
 * subsystem drops that subsystem's controllers on that port; removing an {@code allowed_hosts} link
 * drops nothing. A dropped controller is the host's: it tries to reconnect (the kernel's host does every
 * {@code reconnect_delay}) each time it is looked at, and is live again, with a new controller id,
 * only when a connect would be accepted now. A host entry with a DH-HMAC-CHAP key admits only a host
 * that proves it ({@link FakeNvmetAuth}). The host's {@code ctrl_loss_tmo} is not modelled: a
 * refused controller stays {@code connecting}.
 *
 * <p>Requests on a slow device: a request a live controller sends stays in flight until the device
 * completes it ({@link #completeAll}). A dropped controller's requests still complete later, onto the
 * device (the kernel's teardown of the controller runs on {@code nvmet_wq} and waits for them), unless
 * that work was flushed: removing any port directory does ({@code nvmet_port_release}), completing every
 * request of every controller dropped before it.
 */
final class FakeNvmetControllers {
    private final List<Port> listening;
    private final List<Controller> controllers = new ArrayList<>();
    private int lastCntlid;

    /** @param listening the kernel's listening ports, as {@link FakeNvmet} keeps them */
    FakeNvmetControllers(List<Port> listening) {
        this.listening = listening;
    }

    /** One host's controller of one subsystem, reached at one address, with the secrets its host presents ("" none). */
    static final class Controller {
        final String host;
        final Subsystem subsystem;
        final InetAddress address;
        final long tcpPort;
        final String hostSecret;
        final String controllerSecret;
        Port port; // null while dropped
        int cntlid;
        /** Sent while live and not completed yet; the dropped ones' until {@code nvmet_wq} is flushed. */
        int inFlight;
        int dropped;

        Controller(String host, Subsystem subsystem, InetAddress address, long tcpPort, String hostSecret,
                   String controllerSecret) {
            this.host = host;
            this.subsystem = subsystem;
            this.address = address;
            this.tcpPort = tcpPort;
            this.hostSecret = hostSecret;
            this.controllerSecret = controllerSecret;
        }
    }

    /**
     * The host's connect with its {@code dhchap_secret} and {@code dhchap_ctrl_secret} ("" none); refused
     * as the kernel refuses it ("connect ... not allowed", no listener, authentication failed). A reconnect
     * authenticates again with the same secrets, so a rotation refuses a dropped controller's reconnect.
     */
    Controller connect(String host, Subsystem subsystem, InetAddress address, long tcpPort, String hostSecret,
                       String controllerSecret) throws IOException {
        Controller controller = new Controller(host, subsystem, address, tcpPort, hostSecret, controllerSecret);
        Optional<String> refusal = attach(controller);
        if (refusal.isPresent()) {
            throw new IOException("connect of " + host + " refused: " + refusal.get());
        }
        controllers.add(controller);
        return controller;
    }

    /** {@code live} or {@code connecting}, after the reconnect the host would have tried by now. */
    String state(Controller controller) {
        if (controller.port == null) {
            attach(controller);
        }
        return controller.port == null ? "connecting" : "live";
    }

    /** The host deleted its controller. */
    void disconnect(Controller controller) {
        controllers.remove(controller);
        controller.port = null;
    }

    /** The port no longer links the subsystem: its controllers there are dropped, their requests left to the teardown. */
    void dropped(Port port, Subsystem subsystem) {
        for (Controller c : controllers) {
            if (c.port == port && c.subsystem == subsystem) {
                c.port = null;
                c.dropped += c.inFlight;
                c.inFlight = 0;
            }
        }
    }

    /** The host sends a request, which the device holds; refused unless the controller is live. */
    void send(Controller controller) throws IOException {
        if (!state(controller).equals("live")) {
            throw new IOException("controller of " + controller.host + " is not live");
        }
        controller.inFlight++;
    }

    /** The requests of this controller the device has not completed, live or left to a dropped controller's teardown. */
    int unfinished(Controller controller) {
        return controller.inFlight + controller.dropped;
    }

    /** The device completes every request. */
    void completeAll() {
        controllers.forEach(c -> {
            c.inFlight = 0;
            c.dropped = 0;
        });
    }

    /** {@code flush_workqueue(nvmet_wq)}: every dropped controller's teardown ran, waiting for its requests. */
    void flush() {
        controllers.forEach(c -> c.dropped = 0);
    }

    private Optional<String> attach(Controller controller) {
        Optional<Port> port = listening.stream().filter(p -> p.listenPort == controller.tcpPort
                && (p.listenAddress.equals(controller.address) || p.listenAddress.isAnyLocalAddress())).findFirst();
        if (port.isEmpty()) {
            return Optional.of("nothing listens at " + controller.address.getHostAddress() + ":" + controller.tcpPort);
        }
        if (controller.subsystem.released || !port.get().links(controller.subsystem)) {
            return Optional.of("the port does not export the subsystem");
        }
        if (!controller.subsystem.admits(controller.host)) {
            return Optional.of("host " + controller.host + " not allowed");
        }
        Optional<String> refusal = controller.subsystem.allowAnyHost ? Optional.empty()
                : controller.subsystem.hosts.stream().filter(h -> h.name.equals(controller.host)).findFirst()
                        .flatMap(entry -> FakeNvmetAuth.refusal(entry, controller.hostSecret, controller.controllerSecret));
        if (refusal.isPresent()) {
            return refusal;
        }
        controller.port = port.get();
        controller.cntlid = ++lastCntlid;
        return Optional.empty();
    }
}
