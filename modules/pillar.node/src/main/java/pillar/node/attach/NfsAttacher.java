package pillar.node.attach;

import java.util.Optional;
import java.util.function.Consumer;

import io.grpc.Status;
import pillar.node.mount.MountEntry;
import pillar.node.mount.MountState;
import pillar.node.mount.Mounter;
import pillar.node.sys.SyscallException;
import pillar.runtime.server.CsiException;

/**
 * NFSv4.2 by the kernel's own client: attach mounts the export at its directory, unless an earlier
 * attempt did. A mount is not proof of access (docs/nfs.md fact 4): after mounting, the mount table must
 * show this export (type nfs4, source, addr and clientaddr), or the mount is undone and attach fails
 * INTERNAL. Another mount in the way is FAILED_PRECONDITION. Attached means the mount table shows the
 * export there; detach unmounts whatever is stacked there. A mount over RPC-with-TLS the kernel refuses is
 * FAILED_PRECONDITION naming what the node lacks ({@link NfsTlsRefusal}).
 */
public final class NfsAttacher implements Attacher<NfsMount, Attachment.Mount> {
    private final Mounter mounter;

    public NfsAttacher(Mounter mounter) {
        this.mounter = mounter;
    }

    @Override
    public Protocol protocol() {
        return Protocol.NFS;
    }

    @Override
    public Attachment.Mount attach(NfsMount context, Consumer<String> linked) {
        Optional<MountEntry> present = mounter.probe(context.at()) == MountState.MOUNTED
                ? mounter.find(context.at()) : Optional.empty();
        if (present.isPresent()) {
            if (!context.export().matches(present.get())) {
                throw CsiException.precondition("staging path " + context.at() + " already has "
                        + present.get().fsType() + " " + present.get().source() + " mounted, not "
                        + context.export().describe());
            }
            return new Attachment.Mount(present.get()); // mounted by an earlier attempt
        }
        try {
            mounter.mountNfs(context.export(), context.at(), context.options());
        } catch (SyscallException e) {
            throw context.export().tls() ? NfsTlsRefusal.of(context.export(), e) : e;
        }
        Optional<MountEntry> mounted = mounter.find(context.at());
        if (mounted.filter(context.export()::matches).isEmpty()) {
            mounter.unmount(context.at());
            throw new CsiException(Status.Code.INTERNAL, "after mounting " + context.export().describe() + " at "
                    + context.at() + " the mount table shows " + mounted.map(e -> e.fsType() + " " + e.source() + " ("
                    + e.superOptions() + ")").orElse("nothing") + "; refusing a mount that is not the export");
        }
        return new Attachment.Mount(mounted.get());
    }

    @Override
    public Optional<Attachment.Mount> attached(NfsMount context) {
        if (mounter.probe(context.at()) != MountState.MOUNTED) {
            return Optional.empty();
        }
        return mounter.find(context.at()).filter(context.export()::matches).map(Attachment.Mount::new);
    }

    @Override
    public void detach(NfsMount context) {
        mounter.unmount(context.at());
    }
}
