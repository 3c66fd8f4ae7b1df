package pillar.node.stage;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.api.value.InvalidValueException;
import pillar.api.value.VolumeId;
import pillar.node.fs.FsType;
import pillar.node.nvme.Controller;
import pillar.node.nvme.FabricsTarget;

/**
 * What NodeStageVolume did for one volume, kept durably because NodeUnstageVolume carries neither
 * capability nor context: where it is staged, how (Block, or a filesystem with its mount flags), the
 * NVMe target and controller, the head block device, and where it is published.
 *
 * @param fsType     the filesystem, or empty for a Block volume
 * @param controller the controller, once connected
 * @param device     the head block device's name ({@code nvme1n1}), once found
 */
public record StageRecord(VolumeId volume, Phase phase, Path stagingPath, Optional<FsType> fsType,
                          List<String> mountFlags, Mode accessMode, FabricsTarget target,
                          Optional<Controller> controller, Optional<String> device, List<Publication> publications) {
    public StageRecord {
        mountFlags = List.copyOf(mountFlags);
        publications = List.copyOf(publications);
        checkPath("staging path", stagingPath);
        device.ifPresent(StageRecord::checkDeviceName);
        if (phase == Phase.STAGED && (controller.isEmpty() || device.isEmpty())) {
            throw new InvalidValueException("stage record", "a staged volume has a controller and a device");
        }
    }

    /** The record written before NodeStageVolume touches the host. */
    public static StageRecord attaching(VolumeId volume, Path stagingPath, Optional<FsType> fsType,
                                        List<String> mountFlags, Mode accessMode, FabricsTarget target) {
        return new StageRecord(volume, Phase.ATTACHING, stagingPath, fsType, mountFlags, accessMode, target,
                Optional.empty(), Optional.empty(), List.of());
    }

    public boolean block() {
        return fsType.isEmpty();
    }

    public StageRecord withController(Controller connected) {
        return new StageRecord(volume, phase, stagingPath, fsType, mountFlags, accessMode, target,
                Optional.of(connected), device, publications);
    }

    public StageRecord staged(Controller connected, String deviceName) {
        return new StageRecord(volume, Phase.STAGED, stagingPath, fsType, mountFlags, accessMode, target,
                Optional.of(connected), Optional.of(deviceName), publications);
    }

    public Optional<Publication> publicationAt(Path target) {
        return publications.stream().filter(p -> p.target().equals(target)).findFirst();
    }

    /** This record with {@code publication} added (replacing one at the same target). */
    public StageRecord withPublication(Publication publication) {
        List<Publication> next = new ArrayList<>(withoutPublication(publication.target()).publications);
        next.add(publication);
        return new StageRecord(volume, phase, stagingPath, fsType, mountFlags, accessMode, target, controller,
                device, next);
    }

    public StageRecord withoutPublication(Path target) {
        List<Publication> next = publications.stream().filter(p -> !p.target().equals(target)).toList();
        return new StageRecord(volume, phase, stagingPath, fsType, mountFlags, accessMode, this.target, controller,
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
