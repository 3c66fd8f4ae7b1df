package pillar.node.stage;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.api.value.InvalidValueException;
import pillar.api.value.VolumeId;
import pillar.node.fs.FsType;
import pillar.node.mount.NfsExport;
import pillar.node.nvme.Controller;
import pillar.node.nvme.FabricsTarget;

/**
 * What NodeStageVolume did for one volume, kept durably because NodeUnstageVolume carries neither
 * capability nor context: where it is staged, how (Block, or a filesystem with its mount flags), the
 * NVMe target and controller, the head block device, and where it is published. An NFS volume's
 * record has its export instead of an NVMe target, and neither controller nor device.
 *
 * @param fsType     the filesystem, or empty for a Block volume and for an NFS one
 * @param fabrics    the NVMe-oF target; empty exactly when {@code nfs} is present
 * @param nfs        the NFS export mounted at the staging path
 * @param controller the controller, once connected
 * @param device     the head block device's name ({@code nvme1n1}), once found
 */
public record StageRecord(VolumeId volume, Phase phase, Path stagingPath, Optional<FsType> fsType,
                          List<String> mountFlags, Mode accessMode, Optional<FabricsTarget> fabrics,
                          Optional<NfsExport> nfs, Optional<Controller> controller, Optional<String> device,
                          List<Publication> publications) {
    public StageRecord {
        mountFlags = List.copyOf(mountFlags);
        publications = List.copyOf(publications);
        checkPath("staging path", stagingPath);
        device.ifPresent(StageRecord::checkDeviceName);
        if (fabrics.isPresent() == nfs.isPresent()) {
            throw new InvalidValueException("stage record", "has either an NVMe-oF target or an NFS export");
        }
        if (nfs.isPresent() && (fsType.isPresent() || controller.isPresent() || device.isPresent())) {
            throw new InvalidValueException("stage record", "an NFS volume has no fs-type, controller or device");
        }
        if (phase == Phase.STAGED && nfs.isEmpty() && (controller.isEmpty() || device.isEmpty())) {
            throw new InvalidValueException("stage record", "a staged volume has a controller and a device");
        }
    }

    /** An NVMe-oF volume's record. */
    public StageRecord(VolumeId volume, Phase phase, Path stagingPath, Optional<FsType> fsType, List<String> mountFlags,
                       Mode accessMode, FabricsTarget target, Optional<Controller> controller, Optional<String> device,
                       List<Publication> publications) {
        this(volume, phase, stagingPath, fsType, mountFlags, accessMode, Optional.of(target), Optional.empty(),
                controller, device, publications);
    }

    /** The record written before an NFS volume's staging mount. */
    public static StageRecord mountingNfs(VolumeId volume, Path stagingPath, List<String> mountFlags, Mode accessMode,
                                          NfsExport export) {
        return new StageRecord(volume, Phase.ATTACHING, stagingPath, Optional.empty(), mountFlags, accessMode,
                Optional.empty(), Optional.of(export), Optional.empty(), Optional.empty(), List.of());
    }

    /** The NVMe-oF target of an NVMe-oF volume's record; callers check {@link #nfs} first. */
    public FabricsTarget target() {
        return fabrics.orElseThrow(() -> new IllegalStateException(volume + " is an NFS volume, it has no NVMe target"));
    }

    /** This NFS record, staged. */
    public StageRecord stagedNfs() {
        return new StageRecord(volume, Phase.STAGED, stagingPath, fsType, mountFlags, accessMode, fabrics, nfs,
                controller, device, publications);
    }

    /** The record written before NodeStageVolume touches the host. */
    public static StageRecord attaching(VolumeId volume, Path stagingPath, Optional<FsType> fsType,
                                        List<String> mountFlags, Mode accessMode, FabricsTarget target) {
        return new StageRecord(volume, Phase.ATTACHING, stagingPath, fsType, mountFlags, accessMode, target,
                Optional.empty(), Optional.empty(), List.of());
    }

    public boolean block() {
        return fsType.isEmpty() && nfs.isEmpty();
    }

    public StageRecord withController(Controller connected) {
        return new StageRecord(volume, phase, stagingPath, fsType, mountFlags, accessMode, fabrics, nfs,
                Optional.of(connected), device, publications);
    }

    public StageRecord staged(Controller connected, String deviceName) {
        return new StageRecord(volume, Phase.STAGED, stagingPath, fsType, mountFlags, accessMode, fabrics, nfs,
                Optional.of(connected), Optional.of(deviceName), publications);
    }

    public Optional<Publication> publicationAt(Path target) {
        return publications.stream().filter(p -> p.target().equals(target)).findFirst();
    }

    /** This record with {@code publication} added (replacing one at the same target). */
    public StageRecord withPublication(Publication publication) {
        List<Publication> next = new ArrayList<>(withoutPublication(publication.target()).publications);
        next.add(publication);
        return new StageRecord(volume, phase, stagingPath, fsType, mountFlags, accessMode, fabrics, nfs, controller,
                device, next);
    }

    public StageRecord withoutPublication(Path target) {
        List<Publication> next = publications.stream().filter(p -> !p.target().equals(target)).toList();
        return new StageRecord(volume, phase, stagingPath, fsType, mountFlags, accessMode, fabrics, nfs, controller,
                device, next);
    }

    /** Absolute, normalized, printable: what a path read back from a record must be. */
    static void checkPath(String what, Path path) {
        String text = path.toString();
        if (!path.isAbsolute() || !path.normalize().equals(path) || text.length() > 4096
                || !text.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw new InvalidValueException(what, "must be an absolute, normalized path of printable characters");
        }
    }

    static void checkDeviceName(String name) {
        if (!name.matches("nvme(0|[1-9][0-9]{0,5})n[1-9][0-9]{0,9}")) {
            throw new InvalidValueException("device", "must be an NVMe head namespace name (nvme<s>n<ns>)");
        }
    }
}
