package pillar.bench.control;

import java.util.concurrent.TimeUnit;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.DeleteVolumeRequest;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.ListExportsRequest;
import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;

/** One volume through the agent's API, as the controller drives it: the requests an AOT cache's training run should see. */
final class AgentCycle {
    private AgentCycle() {
    }

    static void run(int port) {
        ManagedChannel channel = Grpc.newChannelBuilderForAddress("127.0.0.1", port, InsecureChannelCredentials.create()).build();
        try {
            AgentServiceGrpc.AgentServiceBlockingStub agent = AgentServiceGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(2, TimeUnit.MINUTES);
            LifecycleUid life = LifecycleUid.random();
            var token = FencingToken.of(life, 1).toProto();
            agent.createVolume(CreateVolumeRequest.newBuilder().setToken(token).setVolumeId("training").setBackend("fast")
                    .setSizeBytes(Cluster.VOLUME_BYTES).build());
            agent.exportVolume(ExportVolumeRequest.newBuilder().setToken(token).setVolumeId("training").setBackend("fast")
                    .setExport(ExportSpec.newBuilder().setBindAddress("127.0.0.1").setPort(4420).setAclEnabled(true)).build());
            agent.allowInitiator(AllowInitiatorRequest.newBuilder().setToken(token).setVolumeId("training")
                    .setHostNqn("nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-00000000aaaa").build());
            agent.listExports(ListExportsRequest.getDefaultInstance());
            agent.deleteVolume(DeleteVolumeRequest.newBuilder().setToken(FencingToken.of(life, 2).toProto()).setVolumeId("training")
                    .setBackend("fast").build());
        } finally {
            channel.shutdownNow();
        }
    }
}
