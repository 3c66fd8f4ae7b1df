package pillar.controller.csi;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.logging.Logger;

import io.grpc.stub.StreamObserver;
import pillar.api.csi.v1.ControllerExpandVolumeRequest;
import pillar.api.csi.v1.ControllerExpandVolumeResponse;
import pillar.api.csi.v1.ControllerGetCapabilitiesRequest;
import pillar.api.csi.v1.ControllerGetCapabilitiesResponse;
import pillar.api.csi.v1.ControllerGetVolumeRequest;
import pillar.api.csi.v1.ControllerGetVolumeResponse;
import pillar.api.csi.v1.ControllerGrpc;
import pillar.api.csi.v1.ControllerPublishVolumeRequest;
import pillar.api.csi.v1.ControllerPublishVolumeResponse;
import pillar.api.csi.v1.ControllerServiceCapability;
import pillar.api.csi.v1.ControllerUnpublishVolumeRequest;
import pillar.api.csi.v1.ControllerUnpublishVolumeResponse;
import pillar.api.csi.v1.CreateSnapshotRequest;
import pillar.api.csi.v1.CreateSnapshotResponse;
import pillar.api.csi.v1.CreateVolumeRequest;
import pillar.api.csi.v1.CreateVolumeResponse;
import pillar.api.csi.v1.DeleteSnapshotRequest;
import pillar.api.csi.v1.DeleteSnapshotResponse;
import pillar.api.csi.v1.DeleteVolumeRequest;
import pillar.api.csi.v1.DeleteVolumeResponse;
import pillar.api.csi.v1.GetCapacityRequest;
import pillar.api.csi.v1.GetCapacityResponse;
import pillar.api.csi.v1.ListSnapshotsRequest;
import pillar.api.csi.v1.ListSnapshotsResponse;
import pillar.api.csi.v1.ListVolumesRequest;
import pillar.api.csi.v1.ListVolumesResponse;
import pillar.api.csi.v1.ValidateVolumeCapabilitiesRequest;
import pillar.api.csi.v1.ValidateVolumeCapabilitiesResponse;
import pillar.api.csi.v1.VolumeCapability;
import pillar.runtime.server.CsiException;
import pillar.runtime.server.Fabric;
import pillar.runtime.server.UnaryCall;
import pillar.runtime.server.VolumeLocks;
import pillar.api.value.InvalidValueException;
import pillar.api.value.Nqn;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;
import pillar.api.value.VolumeName;
import pillar.controller.crd.Grammars;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.VolumeContentSource;
import pillar.controller.snapshot.CsiSnapshots;
import pillar.controller.snapshot.Snapshots;
import pillar.controller.volume.request.Capabilities;
import pillar.controller.volume.read.AbnormalVolumes;
import pillar.controller.volume.read.CapacityReader;
import pillar.controller.volume.create.CreateParameters;
import pillar.controller.volume.state.CsiVolumes;
import pillar.controller.volume.Expander;
import pillar.controller.volume.Leading;
import pillar.controller.volume.create.AdoptParameters;
import pillar.controller.volume.create.Adopter;
import pillar.controller.volume.create.Provisioner;
import pillar.controller.volume.publish.Publisher;
import pillar.controller.volume.state.Records;
import pillar.controller.volume.request.Sizes;
import pillar.controller.volume.create.VolumeContent;
import pillar.controller.volume.read.VolumeHealthReader;
import pillar.controller.volume.state.VolumeStates;
import pillar.controller.volume.Volumes;

/**
 * The CSI Controller service. Each call is checked completely before anything is read or written
 * (INVALID_ARGUMENT, OUT_OF_RANGE; then NOT_FOUND for a volume or node ID that cannot name one, in
 * the spec's order: missing and unsupported arguments first), holds its volume (a second call on it meanwhile is ABORTED),
 * and, when it changes a volume, runs only on the leading replica (others answer UNAVAILABLE).
 * The work is done by {@link Provisioner}, {@link Publisher}, {@link Expander} and
 * {@link CapacityReader} on the volume's {@link PillarVolumeState}.
 */
public final class ControllerService extends ControllerGrpc.ControllerImplBase {
    private static final Logger LOG = Logger.getLogger(ControllerService.class.getName());
    private static final List<ControllerServiceCapability.RPC.Type> CAPABILITIES = List.of(
            ControllerServiceCapability.RPC.Type.CREATE_DELETE_VOLUME,
            ControllerServiceCapability.RPC.Type.PUBLISH_UNPUBLISH_VOLUME,
            ControllerServiceCapability.RPC.Type.EXPAND_VOLUME,
            ControllerServiceCapability.RPC.Type.GET_CAPACITY,
            ControllerServiceCapability.RPC.Type.PUBLISH_READONLY,
            // lets Kubernetes send SINGLE_NODE_SINGLE_WRITER for ReadWriteOncePod (the node says the same)
            ControllerServiceCapability.RPC.Type.SINGLE_NODE_MULTI_WRITER,
            // ControllerGetVolume with a VolumeCondition from the volume's agent (the health monitor polls it)
            ControllerServiceCapability.RPC.Type.GET_VOLUME,
            ControllerServiceCapability.RPC.Type.VOLUME_CONDITION,
            ControllerServiceCapability.RPC.Type.LIST_VOLUMES,
            ControllerServiceCapability.RPC.Type.LIST_VOLUMES_PUBLISHED_NODES,
            // a PillarSnapshotState each; restores and clones on the source's store (LVM linear: no snapshots)
            ControllerServiceCapability.RPC.Type.CREATE_DELETE_SNAPSHOT,
            ControllerServiceCapability.RPC.Type.LIST_SNAPSHOTS,
            ControllerServiceCapability.RPC.Type.CLONE_VOLUME);
    /** The keys external-snapshotter adds with --extra-create-metadata: the only CreateSnapshot parameters. */
    private static final java.util.Set<String> SNAPSHOT_METADATA = java.util.Set.of("csi.storage.k8s.io/volumesnapshot/name",
            "csi.storage.k8s.io/volumesnapshot/namespace", "csi.storage.k8s.io/volumesnapshotcontent/name");

    private final VolumeStates states;
    private final VolumeLocks locks;
    private final Leading leading;
    private final Provisioner provisioner;
    private final Adopter adopter;
    private final Publisher publisher;
    private final Expander expander;
    private final CapacityReader capacity;
    private final VolumeHealthReader health;
    private final VolumeCatalog catalog;
    private final Snapshots snapshots;
    private final AbnormalVolumes abnormal;

    /**
     * @param volumes   the volume state machine; its locks are held by each call (shared with the state
     *                  reconciler), and it changes volumes only while its replica leads
     * @param catalog   the volumes ListVolumes lists; told of every write the state machine makes
     * @param snapshots the snapshot state machine over the same volumes
     */
    public ControllerService(Volumes volumes, VolumeCatalog catalog, Snapshots snapshots) {
        this(volumes, catalog, snapshots, AbnormalVolumes.unreported());
    }

    /** @param abnormal what each ListVolumes page found abnormal goes to */
    public ControllerService(Volumes volumes, VolumeCatalog catalog, Snapshots snapshots, AbnormalVolumes abnormal) {
        this.abnormal = abnormal;
        this.snapshots = snapshots;
        this.states = volumes.states();
        this.catalog = catalog;
        this.locks = volumes.locks();
        this.leading = volumes.leading();
        this.provisioner = volumes.provisioner();
        this.adopter = volumes.adopter();
        this.publisher = volumes.publisher();
        this.expander = volumes.expander();
        this.capacity = volumes.capacity();
        this.health = volumes.health();
    }

    @Override
    public void createVolume(CreateVolumeRequest r, StreamObserver<CreateVolumeResponse> response) {
        unary("CreateVolume", response, () -> {
            VolumeName name = VolumeName.of(r.getName());
            CreateParameters parameters = CreateParameters.parse(r.getParametersMap());
            Capabilities.Requested capabilities = Capabilities.forCreate(r.getVolumeCapabilitiesList(), parameters.fsType());
            Sizes.forCreate(r.getCapacityRange()); // the range's own errors first, whatever the source
            if (r.getMutableParametersMapCount() > 0) {
                throw CsiException.invalid("mutable_parameters_map: volume modification is not supported");
            }
            if (r.hasAccessibilityRequirements() && r.getAccessibilityRequirements().getRequisiteCount() > 0
                    && !Fabric.anyIncludes(r.getAccessibilityRequirements().getRequisiteList())) {
                throw CsiException.exhausted("accessibility_requirements: a pillar-csi volume is accessible only from "
                        + Fabric.KEY + "=" + Fabric.VALUE + " (nodes running pillar-node), which no requisite segment includes");
            }
            VolumeId id = VolumeIds.of(name);
            return locks.run(id, "CreateVolume", () -> {
                leading.require();
                if (!r.hasVolumeContentSource()) {
                    return provisioner.create(name, id, capabilities, Sizes.forCreate(r.getCapacityRange()), r.getCapacityRange(),
                            parameters, r.getParametersMap(), Optional.empty());
                }
                // the source is held too: a snapshot is not deleted, a volume not deleted or changed, while copied
                VolumeContent content = snapshots.sources().resolve(r.getVolumeContentSource(), parameters.cloneMode());
                Supplier<CreateVolumeResponse> create = () -> provisioner.create(name, id, capabilities,
                        Sizes.forSource(r.getCapacityRange(), content.sizeBytes()), r.getCapacityRange(), parameters,
                        r.getParametersMap(), Optional.of(content));
                VolumeContentSource source = content.source();
                return source.getSnapshotId() != null
                        ? snapshots.holding(SnapshotId.of(source.getSnapshotId()), "CreateVolume " + id, create)
                        : locks.run(VolumeId.of(source.getVolumeId()), "CreateVolume " + id, create);
            });
        });
    }

    @Override
    public void deleteVolume(DeleteVolumeRequest r, StreamObserver<DeleteVolumeResponse> response) {
        unary("DeleteVolume", response, () -> {
            Optional<VolumeId> named = VolumeIds.ifAny(r.getVolumeId());
            if (named.isEmpty()) {
                return DeleteVolumeResponse.getDefaultInstance(); // names no volume: deleted already
            }
            VolumeId id = named.get();
            return locks.run(id, "DeleteVolume", () -> {
                leading.require();
                provisioner.delete(id);
                return DeleteVolumeResponse.getDefaultInstance();
            });
        });
    }

    /**
     * Lets the node reach the volume ({@link Publisher}). A volume without a state is NOT_FOUND, unless the
     * volume_context carries {@code pillar.csi.io/adopt: "true"} (a static PersistentVolume's attributes):
     * then the existing volume its ID names is adopted first ({@link Adopter}); its attributes and ID are
     * checked as arguments (INVALID_ARGUMENT), the agent's refusals are FAILED_PRECONDITION or NOT_FOUND.
     */
    @Override
    public void controllerPublishVolume(ControllerPublishVolumeRequest r, StreamObserver<ControllerPublishVolumeResponse> response) {
        unary("ControllerPublishVolume", response, () -> {
            // the spec's order: every required argument, then what exists (the volume, the node)
            VolumeIds.require(r.getVolumeId());
            if (r.getNodeId().isEmpty()) {
                throw CsiException.invalid("node_id is required");
            }
            if (!r.hasVolumeCapability()) {
                throw CsiException.invalid("volume_capability is required");
            }
            Capabilities.check(r.getVolumeCapability());
            // a static PersistentVolume that names an existing volume to adopt (its attributes checked first)
            Optional<AdoptParameters> adopt = AdoptParameters.parse(r.getVolumeContextMap());
            VolumeId id = adopt.isPresent() ? VolumeIds.adopted(r.getVolumeId()) : VolumeIds.existing(r.getVolumeId());
            Nqn node = nodeNqn(r.getNodeId());
            return locks.run(id, "ControllerPublishVolume", () -> {
                leading.require();
                adopt.ifPresent(parameters -> adopter.adopt(id, r.getVolumeCapability(), parameters));
                return publisher.publish(id, node, r.getVolumeCapability(), r.getReadonly());
            });
        });
    }

    @Override
    public void controllerUnpublishVolume(ControllerUnpublishVolumeRequest r,
                                          StreamObserver<ControllerUnpublishVolumeResponse> response) {
        unary("ControllerUnpublishVolume", response, () -> {
            Optional<VolumeId> named = VolumeIds.ifAny(r.getVolumeId());
            if (named.isEmpty()) {
                return ControllerUnpublishVolumeResponse.getDefaultInstance(); // names no volume: unpublished already
            }
            VolumeId id = named.get();
            Optional<Nqn> node = Optional.empty();
            if (!r.getNodeId().isEmpty()) {
                try {
                    node = Optional.of(Nqn.of(r.getNodeId()));
                } catch (InvalidValueException e) {
                    // never a node this controller published to (its node IDs are host NQNs): already unpublished
                    LOG.info(() -> "ControllerUnpublishVolume: node_id is not a host NQN, nothing to unpublish: " + e.getMessage());
                    return ControllerUnpublishVolumeResponse.getDefaultInstance();
                }
            }
            Optional<Nqn> host = node;
            return locks.run(id, "ControllerUnpublishVolume", () -> {
                leading.require();
                publisher.unpublish(id, host);
                return ControllerUnpublishVolumeResponse.getDefaultInstance();
            });
        });
    }

    @Override
    public void controllerExpandVolume(ControllerExpandVolumeRequest r, StreamObserver<ControllerExpandVolumeResponse> response) {
        unary("ControllerExpandVolume", response, () -> {
            VolumeIds.require(r.getVolumeId());
            if (!r.hasCapacityRange()) {
                throw CsiException.invalid("capacity_range is required");
            }
            if (r.hasVolumeCapability()) {
                Capabilities.check(r.getVolumeCapability());
            }
            VolumeId id = VolumeIds.existing(r.getVolumeId());
            return locks.run(id, "ControllerExpandVolume", () -> {
                leading.require();
                return expander.expand(id, r.getCapacityRange());
            });
        });
    }

    @Override
    public void validateVolumeCapabilities(ValidateVolumeCapabilitiesRequest r,
                                           StreamObserver<ValidateVolumeCapabilitiesResponse> response) {
        unary("ValidateVolumeCapabilities", response, () -> {
            VolumeIds.require(r.getVolumeId());
            if (r.getVolumeCapabilitiesCount() == 0) {
                throw CsiException.invalid("volume_capabilities: at least one is required");
            }
            VolumeId id = VolumeIds.existing(r.getVolumeId());
            PillarVolumeState state = states.get(id).orElseThrow(() -> CsiException.notFound("volume " + id + " does not exist"));
            for (VolumeCapability capability : r.getVolumeCapabilitiesList()) {
                try {
                    Capabilities.check(capability);
                } catch (CsiException unsupported) {
                    return ValidateVolumeCapabilitiesResponse.newBuilder().setMessage(unsupported.getMessage()).build();
                }
                Optional<String> mismatch = Capabilities.mismatch(capability, state.getSpec());
                if (mismatch.isPresent()) {
                    return ValidateVolumeCapabilitiesResponse.newBuilder().setMessage(mismatch.get()).build();
                }
            }
            return ValidateVolumeCapabilitiesResponse.newBuilder().setConfirmed(ValidateVolumeCapabilitiesResponse.Confirmed
                    .newBuilder().addAllVolumeCapabilities(r.getVolumeCapabilitiesList())
                    .putAllVolumeContext(r.getVolumeContextMap()).putAllParameters(r.getParametersMap())).build();
        });
    }

    @Override
    public void getCapacity(GetCapacityRequest r, StreamObserver<GetCapacityResponse> response) {
        unary("GetCapacity", response, () -> r.hasAccessibleTopology() && !Fabric.includes(r.getAccessibleTopology())
                ? GetCapacityResponse.newBuilder().setAvailableCapacity(0).build()
                : capacity.capacity(r.getVolumeCapabilitiesList(), r.getParametersMap()));
    }

    /**
     * The volume as CreateVolume returned it, the nodes it is published to, and its condition from one
     * GetVolumeHealth call to its agent (an agent that cannot be asked is an abnormal condition, never
     * an error: the health monitor turns only answers into PVC events). A read: neither held nor led.
     * No volume_id: INVALID_ARGUMENT; no volume of that ID (a malformed one included): NOT_FOUND.
     */
    @Override
    public void controllerGetVolume(ControllerGetVolumeRequest r, StreamObserver<ControllerGetVolumeResponse> response) {
        unary("ControllerGetVolume", response, () -> {
            PillarVolumeState state = VolumeIds.ifAny(r.getVolumeId()).flatMap(states::get)
                    .orElseThrow(() -> CsiException.notFound("volume " + Grammars.printable(r.getVolumeId()) + " does not exist"));
            return ControllerGetVolumeResponse.newBuilder().setVolume(CsiVolumes.of(state))
                    .setStatus(ControllerGetVolumeResponse.VolumeStatus.newBuilder()
                            .addAllPublishedNodeIds(Records.publishedNodes(state))
                            .setVolumeCondition(health.condition(state)))
                    .build();
        });
    }

    /**
     * A page of the volumes whose create completed, on any replica, each with its condition as
     * ControllerGetVolume reads it (the health monitor lists when it can); see {@link ListTokens} for the tokens.
     */
    @Override
    public void listVolumes(ListVolumesRequest r, StreamObserver<ListVolumesResponse> response) {
        unary("ListVolumes", response, () -> {
            if (r.getMaxEntries() < 0) {
                throw CsiException.invalid("max_entries must not be negative, is " + r.getMaxEntries());
            }
            ListVolumesResponse page = catalog.page(ListTokens.position(r.getStartingToken()), r.getMaxEntries(), health::forListing);
            abnormal.pageListed(r.getStartingToken().isEmpty(), page);
            return page;
        });
    }

    /**
     * A snapshot of the source volume, taken or found by name; the snapshot and its source are held
     * meanwhile. No name or source_volume_id: INVALID_ARGUMENT; a source that does not exist: NOT_FOUND;
     * a store that cannot take snapshots (LVM linear): FAILED_PRECONDITION naming its layout.
     */
    @Override
    public void createSnapshot(CreateSnapshotRequest r, StreamObserver<CreateSnapshotResponse> response) {
        unary("CreateSnapshot", response, () -> {
            if (r.getName().isEmpty()) {
                throw CsiException.invalid("name is required");
            }
            VolumeName name = VolumeName.of(r.getName());
            if (r.getSourceVolumeId().isEmpty()) {
                throw CsiException.invalid("source_volume_id is required");
            }
            for (String key : r.getParametersMap().keySet()) {
                if (!SNAPSHOT_METADATA.contains(key)) {
                    throw CsiException.invalid("parameters[" + Grammars.printable(key) + "]: unknown parameter; a pillar-csi"
                            + " VolumeSnapshotClass takes none (the snapshot stays on its source's store)");
                }
            }
            VolumeId source = VolumeIds.existing(r.getSourceVolumeId());
            SnapshotId id = SnapshotIds.of(name.value());
            return snapshots.holding(id, "CreateSnapshot", () -> locks.run(source, "CreateSnapshot " + id, () -> {
                leading.require();
                return CreateSnapshotResponse.newBuilder()
                        .setSnapshot(CsiSnapshots.of(snapshots.snapshotter().create(name.value(), id, source))).build();
            }));
        });
    }

    /** Destroys the snapshot; one that does not exist (or cannot be an ID of ours) is deleted already. */
    @Override
    public void deleteSnapshot(DeleteSnapshotRequest r, StreamObserver<DeleteSnapshotResponse> response) {
        unary("DeleteSnapshot", response, () -> {
            Optional<SnapshotId> named = SnapshotIds.ifAny(r.getSnapshotId());
            named.ifPresent(id -> snapshots.holding(id, "DeleteSnapshot", () -> {
                leading.require();
                snapshots.snapshotter().delete(id);
                return null;
            }));
            return DeleteSnapshotResponse.getDefaultInstance();
        });
    }

    /** A page of the snapshots whose create completed, read now on any replica; see {@link SnapshotListing}. */
    @Override
    public void listSnapshots(ListSnapshotsRequest r, StreamObserver<ListSnapshotsResponse> response) {
        unary("ListSnapshots", response, () -> SnapshotListing.page(r, snapshots.ready()));
    }

    @Override
    public void controllerGetCapabilities(ControllerGetCapabilitiesRequest r,
                                          StreamObserver<ControllerGetCapabilitiesResponse> response) {
        unary("ControllerGetCapabilities", response, () -> {
            ControllerGetCapabilitiesResponse.Builder out = ControllerGetCapabilitiesResponse.newBuilder();
            CAPABILITIES.forEach(type -> out.addCapabilities(ControllerServiceCapability.newBuilder()
                    .setRpc(ControllerServiceCapability.RPC.newBuilder().setType(type))));
            return out.build();
        });
    }

    /**
     * The CSI node ID is the node's NVMe host NQN (what pillar-node's NodeGetInfo reports); any other
     * value names no node, which is NOT_FOUND (the spec's "node does not exist").
     */
    private static Nqn nodeNqn(String nodeId) {
        try {
            return Nqn.of(nodeId);
        } catch (InvalidValueException e) {
            throw CsiException.notFound("node " + nodeId + " does not exist: a pillar-csi node ID is the node's NVMe host NQN,"
                    + " as pillar-node reports it (" + e.getMessage() + ")");
        }
    }

    private static <T> void unary(String rpc, StreamObserver<T> response, Supplier<T> call) {
        UnaryCall.answer(rpc, response, CsiErrors.MAPPING, call);
    }
}
