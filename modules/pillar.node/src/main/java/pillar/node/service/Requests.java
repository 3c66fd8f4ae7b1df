package pillar.node.service;

import java.nio.file.Path;
import java.util.Optional;

import io.grpc.Status;
import pillar.api.context.VolumeContext;
import pillar.api.csi.v1.NodeExpandVolumeRequest;
import pillar.api.csi.v1.NodeGetVolumeStatsRequest;
import pillar.api.csi.v1.NodePublishVolumeRequest;
import pillar.api.csi.v1.NodeStageVolumeRequest;
import pillar.api.csi.v1.NodeUnpublishVolumeRequest;
import pillar.api.csi.v1.NodeUnstageVolumeRequest;
import pillar.api.value.InvalidValueException;
import pillar.api.value.TlsPsk;
import pillar.node.nvme.FabricsTls;
import pillar.api.value.VolumeId;
import pillar.node.attach.Protocol;
import pillar.node.fs.MkfsOptions;
import pillar.node.mount.NfsExport;
import pillar.node.nvme.FabricsAuth;
import pillar.node.nvme.FabricsTarget;
import pillar.runtime.server.CsiException;

/**
 * Turns each Node request into validated values before anything is locked or touched: the volume ID
 * by its grammar, paths by {@link KubeletPaths}, the capability by {@link Capability}, the publish
 * context by {@link FabricsTarget}, the volume context's mkfs options by {@link MkfsOptions}. A bad
 * field is INVALID_ARGUMENT (or the code the spec gives), naming the field.
 */
final class Requests {
    private final KubeletPaths paths;
    private final String nodeId;

    /** @param nodeId this node's CSI node ID (its Kubernetes node name): the prefix of its keys in the stage secrets */
    Requests(KubeletPaths paths, String nodeId) {
        this.paths = paths;
        this.nodeId = nodeId;
    }

    /** @param auth the DH-HMAC-CHAP secrets to connect with (never recorded, never shown) */
    record Stage(VolumeId volume, Path stagingPath, Capability capability, FabricsTarget target, MkfsOptions mkfs,
                 Optional<FabricsAuth> auth, Optional<TlsPsk> tls) {
    }

    /** NodeStageVolume of an NFS volume ({@code protocol=nfs} in the publish context). */
    record StageNfs(VolumeId volume, Path stagingPath, Capability capability, NfsExport export) {
    }

    record Unstage(VolumeId volume, Path stagingPath) {
    }

    record Publish(VolumeId volume, Path stagingPath, Path targetPath, Capability capability, boolean readOnly) {
        /** Read-only when asked, or when the access mode only reads. */
        boolean effectiveReadOnly() {
            return readOnly || capability.readerOnly();
        }
    }

    record Unpublish(VolumeId volume, Path targetPath) {
    }

    /** @param volumePath as given: where it points is decided against the volume's record ({@link VolumeStatsReader#locate}) */
    record Stats(VolumeId volume, String volumePath) {
    }

    /** @param volumePath as given, like {@link Stats}'s */
    record Expand(VolumeId volume, String volumePath, long requiredBytes, Optional<Capability> capability) {
    }

    static VolumeId volumeId(String value) {
        if (value.isEmpty()) {
            throw CsiException.invalid("volume_id is required");
        }
        try {
            return VolumeId.of(value);
        } catch (InvalidValueException e) {
            throw CsiException.invalid(e.getMessage());
        }
    }

    /**
     * The volume_id of a call on a volume this node must know (stats, expand): a value that is not a
     * pillar-csi volume ID names no volume here, which is NOT_FOUND (checked after the required fields).
     */
    static VolumeId knownVolumeId(String value) {
        try {
            return volumeId(value);
        } catch (CsiException malformed) {
            throw CsiException.notFound("volume " + value + " is not staged on this node: " + malformed.getMessage());
        }
    }

    Stage stage(NodeStageVolumeRequest r) {
        VolumeId volume = volumeId(r.getVolumeId());
        Path staging = paths.check("staging_target_path", r.getStagingTargetPath());
        Capability capability = Capability.parse(r.hasVolumeCapability(), r.getVolumeCapability());
        try {
            FabricsTarget target = FabricsTarget.fromPublishContext(r.getPublishContextMap());
            MkfsOptions mkfs = capability.fsType()
                    .map(t -> MkfsOptions.parse(r.getVolumeContextOrDefault(VolumeContext.MKFS_OPTIONS, ""), t))
                    .orElse(MkfsOptions.NONE);
            Optional<FabricsAuth> auth = FabricsAuth.fromStage(r.getPublishContextMap(), r.getSecretsMap(), nodeId);
            return new Stage(volume, staging, capability, target, mkfs, auth, FabricsTls.pskFromStage(r.getPublishContextMap()));
        } catch (InvalidValueException e) {
            throw CsiException.invalid(e.getMessage());
        } catch (FabricsAuth.MissingSecretException e) {
            throw CsiException.precondition(e.getMessage());
        }
    }

    /** The protocol a publish context names; one this node does not serve is INVALID_ARGUMENT. */
    static Protocol protocol(java.util.Map<String, String> publishContext) {
        try {
            return Protocol.of(publishContext);
        } catch (InvalidValueException e) {
            throw CsiException.invalid(e.getMessage());
        }
    }

    /** Checked in {@link #stage}'s order; the capability by {@link Capability#parseNfs}, the export by {@link NfsExport}. */
    StageNfs stageNfs(NodeStageVolumeRequest r) {
        VolumeId volume = volumeId(r.getVolumeId());
        Path staging = paths.check("staging_target_path", r.getStagingTargetPath());
        Capability capability = Capability.parseNfs(r.hasVolumeCapability(), r.getVolumeCapability());
        try {
            return new StageNfs(volume, staging, capability, NfsExport.fromPublishContext(r.getPublishContextMap()));
        } catch (InvalidValueException e) {
            throw CsiException.invalid(e.getMessage());
        }
    }

    Unstage unstage(NodeUnstageVolumeRequest r) {
        return new Unstage(volumeId(r.getVolumeId()), paths.check("staging_target_path", r.getStagingTargetPath()));
    }

    Publish publish(NodePublishVolumeRequest r) {
        VolumeId volume = volumeId(r.getVolumeId());
        Path target = paths.check("target_path", r.getTargetPath());
        Capability capability = protocol(r.getPublishContextMap()) == Protocol.NFS
                ? Capability.parseNfs(r.hasVolumeCapability(), r.getVolumeCapability())
                : Capability.parse(r.hasVolumeCapability(), r.getVolumeCapability());
        if (r.getStagingTargetPath().isEmpty()) {
            // the spec's own code for this case: "Staging target path not set"
            throw CsiException.precondition("staging_target_path is not set; this node stages volumes (STAGE_UNSTAGE_VOLUME)");
        }
        Path staging = paths.check("staging_target_path", r.getStagingTargetPath());
        if (target.equals(staging) || target.startsWith(staging) || staging.startsWith(target)) {
            throw CsiException.invalid("target_path and staging_target_path must not contain one another");
        }
        return new Publish(volume, staging, target, capability, r.getReadonly());
    }

    Unpublish unpublish(NodeUnpublishVolumeRequest r) {
        return new Unpublish(volumeId(r.getVolumeId()), paths.check("target_path", r.getTargetPath()));
    }

    /**
     * The spec's order: the required fields (INVALID_ARGUMENT), then whether this node knows the
     * volume at that path (NOT_FOUND, by {@link VolumeStatsReader#locate}, whatever the path's shape).
     * The optional staging_target_path is not used: the volume's record has it.
     */
    Stats stats(NodeGetVolumeStatsRequest r) {
        requirePresent(r.getVolumeId(), r.getVolumePath());
        return new Stats(knownVolumeId(r.getVolumeId()), r.getVolumePath());
    }

    /** Checked in {@link #stats}'s order; the capacity and the capability are arguments, checked first. */
    Expand expand(NodeExpandVolumeRequest r) {
        requirePresent(r.getVolumeId(), r.getVolumePath());
        long required = r.getCapacityRange().getRequiredBytes();
        long limit = r.getCapacityRange().getLimitBytes();
        if (required < 0 || limit < 0) {
            throw CsiException.invalid("capacity_range must not be negative");
        }
        if (limit > 0 && required > limit) {
            throw new CsiException(Status.Code.OUT_OF_RANGE, "capacity_range.required_bytes " + required
                    + " exceeds limit_bytes " + limit);
        }
        Optional<Capability> capability = Optional.empty();
        if (r.hasVolumeCapability()) {
            try {
                capability = Optional.of(Capability.parse(true, r.getVolumeCapability()));
            } catch (CsiException e) {
                try {
                    // the request carries no publish context: an NFS volume's capability (nfs, many writers) is also valid
                    capability = Optional.of(Capability.parseNfs(true, r.getVolumeCapability()));
                } catch (CsiException notNfs) {
                    // NodeExpandVolume's code for "capabilities not supported by the volume"
                    throw CsiException.invalid(e.getMessage());
                }
            }
        }
        return new Expand(knownVolumeId(r.getVolumeId()), r.getVolumePath(), required, capability);
    }

    private static void requirePresent(String volumeId, String volumePath) {
        if (volumeId.isEmpty()) {
            throw CsiException.invalid("volume_id is required");
        }
        if (volumePath.isEmpty()) {
            throw CsiException.invalid("volume_path is required");
        }
    }
}
