package pillar.api.server;

import java.nio.file.Path;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;

/** A real gRPC client channel over a UNIX socket, as kubelet and the CSI sidecars use. */
final class UnixChannels {
    private UnixChannels() {
    }

    static ManagedChannel open(Path socket) {
        return NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .eventLoopGroup(new EpollEventLoopGroup(1))
                .channelType(EpollDomainSocketChannel.class)
                .usePlaintext()
                .build();
    }
}
