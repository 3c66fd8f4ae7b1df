package pillar.runtime.server;

import java.nio.file.Path;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;

/** gRPC client channels: to a CSI UNIX socket (as kubelet and the sidecars connect). */
public final class Channels {
    /** One small event loop for every UNIX-socket client of the process, on daemon threads. */
    private static final EpollEventLoopGroup UNIX_LOOP =
            new EpollEventLoopGroup(1, new DefaultThreadFactory("pillar-unix-client", true));

    private Channels() {
    }

    /** A plaintext channel to a UNIX socket; the caller shuts it down. */
    public static ManagedChannel unix(Path socket) {
        return NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .eventLoopGroup(UNIX_LOOP)
                .channelType(EpollDomainSocketChannel.class)
                .usePlaintext()
                .build();
    }
}
