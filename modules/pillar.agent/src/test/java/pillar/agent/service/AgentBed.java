package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import pillar.agent.AgentMain;
import pillar.agent.backend.Backends;
import pillar.agent.backend.lvm.FakeLvm;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.config.AgentConfig;
import pillar.agent.config.BackendConfig;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.agent.state.InstallationId;
import pillar.agent.state.StateCheck;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.BackendKind;
import pillar.api.fencing.FencingToken;
import pillar.runtime.server.WorkloadServer;
import pillar.api.value.LifecycleUid;

/**
 * One storage node for the start-up tests: a thin LVM backend on the stateful LVM fake, the real
 * nvmet writer on the kernel-like fake configfs, durable state under {@code dir}; agents started on
 * it as {@code AgentMain.launch} does (state checked first, backends owning the installation found),
 * on fixed ports so that a test can call one that is still starting.
 */
final class AgentBed {
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:0f9c2a6e-7c1b-4b8e-9a57-3e2d1c0b9a88";
    static final long MIB = 1L << 20;
    static final List<BackendConfig> BACKENDS = List.of(new BackendConfig("fast", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "pool0"));

    final Path dir;
    final FakeLvm lvm;
    FakeConfigfsTree configfs = FakeConfigfsTree.create();
    final LifecycleUid lifecycle = LifecycleUid.random();
    final int grpcPort = freePort();
    final int healthPort = freePort();
    private ManagedChannel channel;
    private WorkloadServer agent;

    AgentBed(Path dir) {
        this.dir = dir;
        this.lvm = new FakeLvm("vg0", 1024 * MIB, dir.resolve("dev")).withThinPool("pool0", 512 * MIB);
    }

    /** A stub on the channel to the agent started last, with a deadline from now. */
    AgentServiceGrpc.AgentServiceBlockingStub stub() {
        return AgentServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    /** The agent of node {@code node}, with no installation configured (generated at its first start). */
    AgentConfig config(String node) {
        return new AgentConfig("127.0.0.1", grpcPort, dir.resolve("state"), configfs.root(), Optional.empty(), BACKENDS,
                "127.0.0.1", healthPort, node, Optional.empty());
    }

    Map<String, VolumeBackend> backends(InstallationId installation) {
        return Backends.create(BACKENDS, lvm, lvm.host(), installation);
    }

    /**
     * Starts an agent as {@code launch} does, after stopping the one before; {@code wrap} may slow the
     * backends down. Returns once it has started; the bed stops it.
     */
    void start(AgentConfig config, java.util.function.UnaryOperator<Map<String, VolumeBackend>> wrap) {
        close();
        channel = Grpc.newChannelBuilderForAddress("127.0.0.1", grpcPort, InsecureChannelCredentials.create()).build();
        StateCheck.Verdict state = AgentMain.checkState(config, configfs.target());
        agent = AgentMain.start(config, wrap.apply(backends(state.installation())), configfs.target(), state);
    }

    void start(String node) {
        start(config(node), b -> b);
    }

    /** Stops the agent started last, if it runs. */
    void stopAgent() {
        if (agent != null) {
            agent.close();
            agent = null;
        }
    }

    pillar.api.agent.v1.FencingToken token(long generation) {
        return FencingToken.of(lifecycle, generation).toProto();
    }

    /** Creates the volume, exports it with the ACL on and admits {@link #HOST}. */
    void createExportAndAllow(String id) {
        var volume = stub().createVolume(CreateVolumeRequest.newBuilder().setToken(token(0)).setVolumeId(id)
                .setBackend("fast").setSizeBytes(64 * MIB).build()).getVolume();
        configfs.addBlockDevice(Path.of(volume.getDevicePath()));
        stub().exportVolume(ExportVolumeRequest.newBuilder().setToken(token(0)).setVolumeId(id).setBackend("fast")
                .setExport(ExportSpec.newBuilder().setBindAddress("127.0.0.1").setPort(4420).setAclEnabled(true)).build());
        stub().allowInitiator(AllowInitiatorRequest.newBuilder().setToken(token(0)).setVolumeId(id).setHostNqn(HOST).build());
    }

    /** The readiness endpoint's answer: its status code and body (HTTP/1.1 over a plain socket, body by Content-Length). */
    Health readiness() {
        try (Socket socket = new Socket("127.0.0.1", healthPort)) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write("GET /observe/health/ready HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            StringBuilder head = new StringBuilder();
            while (!head.toString().endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    throw new IOException("the health endpoint closed after '" + head + "'");
                }
                head.append((char) b);
            }
            String headers = head.toString().toLowerCase(Locale.ROOT);
            StringBuilder body = new StringBuilder();
            if (headers.contains("transfer-encoding: chunked")) {
                for (int size = chunkSize(in); size > 0; size = chunkSize(in)) {
                    body.append(new String(in.readNBytes(size), StandardCharsets.UTF_8));
                    in.readNBytes(2); // the CRLF after each chunk
                }
            } else {
                int length = headers.lines().filter(l -> l.startsWith("content-length:"))
                        .mapToInt(l -> Integer.parseInt(l.substring(l.indexOf(':') + 1).strip())).findFirst().orElse(0);
                body.append(new String(in.readNBytes(length), StandardCharsets.UTF_8));
            }
            return new Health(Integer.parseInt(head.toString().split(" ")[1]), body.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int chunkSize(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b = in.read(); b >= 0 && b != '\n'; b = in.read()) {
            line.append((char) b);
        }
        return Integer.parseInt(line.toString().strip(), 16);
    }

    /** An answer of the health endpoint. */
    record Health(int statusCode, String body) {
    }

    /** Stops the agent and closes the channel to it (a new one per agent: an old one may be backing off). */
    void close() {
        stopAgent();
        if (channel != null) {
            channel.shutdownNow();
            channel = null;
        }
    }

    static StatusRuntimeException assertCode(Status.Code code, Runnable call) {
        StatusRuntimeException[] thrown = new StatusRuntimeException[1];
        assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(code);
            thrown[0] = e;
        });
        return thrown[0];
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
