package pillar.runtime.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import pillar.api.csi.v1.NodeGetInfoRequest;
import pillar.api.csi.v1.NodeGetInfoResponse;
import pillar.api.csi.v1.NodeGrpc;

/**
 * The server's bounds, through a real server and client on TCP: calls over
 * {@code server.max-concurrent-calls} are refused UNAVAILABLE at once, a handler still running after
 * its caller gave up keeps its place, and a connection over {@code server.max-health-connections} is
 * not served until another closes.
 */
class ServerLimitsIT {
    private final Semaphore entered = new Semaphore(0);
    private final CountDownLatch release = new CountDownLatch(1);
    private final List<ManagedChannel> channels = new ArrayList<>();
    private WorkloadServer server;

    /** nodeGetInfo blocks until {@link #release}, as a call stuck on the kernel does. */
    private final class BlockingNode extends NodeGrpc.NodeImplBase {
        @Override
        public void nodeGetInfo(NodeGetInfoRequest request, StreamObserver<NodeGetInfoResponse> response) {
            entered.release();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            response.onNext(NodeGetInfoResponse.newBuilder().setNodeId("worker-1").build());
            response.onCompleted();
        }
    }

    @AfterEach
    void stop() {
        release.countDown();
        channels.forEach(ManagedChannel::shutdownNow);
        if (server != null) {
            server.close();
        }
    }

    private void start(ServerLimits limits) {
        server = WorkloadServer.builder().tcp("127.0.0.1", 0).health("127.0.0.1", 0).limits(limits)
                .service(new BlockingNode()).start();
    }

    private NodeGrpc.NodeBlockingStub stub() {
        ManagedChannel channel = Grpc.newChannelBuilderForAddress("127.0.0.1", server.grpcPort(),
                InsecureChannelCredentials.create()).build();
        channels.add(channel);
        return NodeGrpc.newBlockingStub(channel).withDeadlineAfter(1, TimeUnit.MINUTES);
    }

    @Test
    void aCallOverTheLimitIsRefusedUnavailableAndThePlacesComeBack() throws Exception {
        start(new ServerLimits(8, 8, 2, Duration.ZERO));
        List<Thread> blocked = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            blocked.add(Thread.ofVirtual().start(() -> stub().nodeGetInfo(NodeGetInfoRequest.getDefaultInstance())));
        }
        assertThat(entered.tryAcquire(2, 1, TimeUnit.MINUTES)).isTrue();
        assertThatThrownBy(() -> stub().nodeGetInfo(NodeGetInfoRequest.getDefaultInstance()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                    assertThat(e.getStatus().getDescription()).contains("serving 2 calls at once", "server.max-concurrent-calls");
                });
        release.countDown();
        for (Thread thread : blocked) {
            thread.join(Duration.ofMinutes(1));
        }
        assertThat(stub().nodeGetInfo(NodeGetInfoRequest.getDefaultInstance()).getNodeId()).isEqualTo("worker-1");
    }

    @Test
    void aHandlerStillRunningAfterItsCallerGaveUpKeepsItsPlace() throws Exception {
        start(new ServerLimits(8, 8, 1, Duration.ZERO));
        assertThatThrownBy(() -> stub().withDeadlineAfter(300, TimeUnit.MILLISECONDS).nodeGetInfo(NodeGetInfoRequest.getDefaultInstance()))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
        assertThat(entered.tryAcquire(1, TimeUnit.MINUTES)).isTrue();
        assertThatThrownBy(() -> stub().nodeGetInfo(NodeGetInfoRequest.getDefaultInstance()))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
        release.countDown();
        // the stuck handler returns and gives its place back
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (true) {
            try {
                assertThat(stub().nodeGetInfo(NodeGetInfoRequest.getDefaultInstance()).getNodeId()).isEqualTo("worker-1");
                break;
            } catch (StatusRuntimeException e) {
                assertThat(System.nanoTime() - deadline).as("the place came back within a minute").isNegative();
                Thread.sleep(20);
            }
        }
    }

    @Test
    void aConnectionOverTheHealthPortsBoundIsServedOnlyOnceAnotherCloses() throws Exception {
        start(new ServerLimits(8, 1, 8, Duration.ZERO));
        try (Socket first = connect()) {
            assertThat(ready(first, Duration.ofSeconds(30))).isTrue();
            try (Socket second = connect()) {
                assertThat(ready(second, Duration.ofSeconds(2))).as("not served while the first is open").isFalse();
            }
        }
        try (Socket third = connect()) {
            assertThat(ready(third, Duration.ofSeconds(30))).as("served once the others closed").isTrue();
        }
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", server.healthPort()), 5_000);
        return socket;
    }

    /** Whether a keep-alive GET of the readiness endpoint is answered on {@code socket} within {@code wait}. */
    private static boolean ready(Socket socket, Duration wait) throws IOException {
        socket.setSoTimeout((int) wait.toMillis());
        OutputStream out = socket.getOutputStream();
        out.write("GET /observe/health/live HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = socket.getInputStream();
        byte[] head = new byte[12];
        try {
            int n = in.readNBytes(head, 0, head.length);
            return n == head.length && new String(head, StandardCharsets.US_ASCII).startsWith("HTTP/1.1 ");
        } catch (SocketTimeoutException e) {
            return false;
        }
    }
}
