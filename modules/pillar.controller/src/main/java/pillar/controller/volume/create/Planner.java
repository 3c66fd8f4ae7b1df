package pillar.controller.volume.create;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.logging.Logger;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import pillar.runtime.server.CsiException;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;
import pillar.api.value.VolumeName;
import pillar.controller.auth.PublicationKeys;
import pillar.controller.auth.VolumeStageSecrets;
import pillar.controller.crd.Condition;
import pillar.controller.crd.Conditions;
import pillar.controller.crd.Grammars;
import pillar.controller.crd.Nfs;
import pillar.controller.crd.NvmeofTcp;
import pillar.controller.crd.PillarProtocol;
import pillar.controller.crd.PillarProtocolSpec;
import pillar.controller.crd.ProtocolFit;
import pillar.controller.crd.ProtocolKind;
import pillar.controller.crd.PillarStore;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.PillarVolumeStateSpec;
import pillar.controller.crd.SpecValidator;
import pillar.controller.crd.VolumeConnect;
import pillar.controller.crd.VolumeExport;
import pillar.controller.volume.AgentLocator;
import pillar.controller.volume.Inventory;
import pillar.controller.volume.publish.HostAuthentication;
import pillar.controller.volume.request.Capabilities;

/**
 * The state of a new volume, with every setting resolved and checked before anything is written:
 * the store (valid, its pool discovered on its agent), the protocol (valid), the claim's
 * annotations, and the export spec the nodes will connect with (NVMe-oF/TCP, or NFS from a dataset
 * store: {@link ProtocolFit}); a protocol that requires authentication or TLS needs an agent whose kernel has it, one
 * that squashes root an agent that can. Reads the {@link Inventory}, and the agent's
 * capabilities then.
 */
public final class Planner {
    private static final Logger LOG = Logger.getLogger(Planner.class.getName());

    private final Inventory inventory;
    private final AgentLocator locator;
    private final HostAuthentication auth;

    public Planner(Inventory inventory, AgentLocator locator, HostAuthentication auth) {
        this.inventory = inventory;
        this.locator = locator;
        this.auth = auth;
    }

    PillarVolumeState plan(VolumeName name, VolumeId id, Capabilities.Requested capabilities, ByteSize size,
                           CreateParameters parameters, Map<String, String> rawParameters) {
        PillarStore store = store(parameters.store());
        PillarProtocolSpec protocol = protocol(parameters.protocol());
        ProtocolFit.mismatch(parameters.store(), store.getSpec(), parameters.protocol(), protocol).ifPresent(why -> {
            throw CsiException.invalid("parameters: " + why);
        });
        NvmeofTcp tcp = protocol.getNvmeofTcp();
        if (tcp != null) {
            Capabilities.unfenced(tcp.getAclEnabled(), capabilities.accessModes()).ifPresent(why -> {
                throw CsiException.invalid("volume_capabilities: " + why + " (PillarProtocol " + parameters.protocol() + ")");
            });
        }
        if (tcp != null && (tcp.authRequired() || tcp.tlsRequired())) {
            // the key Secret's prefix is as long as the stage Secret's: a name that makes one makes the other
            if (VolumeStageSecrets.secretName(name.value()).isEmpty()) {
                throw CsiException.invalid("name: the protocol " + (tcp.authRequired() ? "requires authentication, and the node's"
                        + " stage Secret " + VolumeStageSecrets.PREFIX : "requires TLS, and its keys' Secret " + PublicationKeys.PREFIX)
                        + "<name> must be a Secret name (lower case, at most 253), is " + Grammars.printable(name.value()));
            }
            auth.requireSupported(store.getSpec().getAgent(), tcp.authRequired(), tcp.tlsRequired());
        }
        if (protocol.getNfs() != null && protocol.getNfs().rootSquash() && !auth.capabilities(store.getSpec().getAgent()).getNfsRootSquash()) {
            // an older agent would ignore the field and export no_root_squash
            throw CsiException.precondition("PillarProtocol " + parameters.protocol() + " asks for root_squash and agent "
                    + store.getSpec().getAgent() + " cannot export with it (an agent of an earlier release): upgrade the agent");
        }
        if (protocol.getNfs() != null && protocol.getNfs().tlsRequired()) {
            auth.requireNfsTls(store.getSpec().getAgent());
        }
        Map<String, String> annotations = parameters.claim().map(this::claimAnnotations).orElse(Map.of());
        VolumeSettings settings = VolumeSettings.resolve(store.getSpec(), parameters.settings(), parameters.overridable(),
                annotations);

        PillarVolumeStateSpec spec = new PillarVolumeStateSpec();
        spec.setVolumeName(name.value());
        spec.setStore(parameters.store());
        spec.setAgent(store.getSpec().getAgent());
        spec.setBackend(store.getSpec().getZfs() != null ? store.getSpec().getZfs().getBackend() : store.getSpec().getLvm().getBackend());
        spec.setBackendKind(store.getStatus().getBackendKind());
        spec.setProtocol(parameters.protocol());
        spec.setCapacityBytes(size.bytes());
        spec.setVolumeMode(capabilities.mode());
        spec.setFsType(capabilities.fsType().orElse(null));
        spec.setAccessModes(capabilities.accessModes());
        spec.setMkfsOptions(capabilities.mode() == PillarVolumeStateSpec.VolumeMode.Filesystem
                ? settings.mkfsOptions().orElse(null) : null);
        spec.setBackendOptions(new TreeMap<>(settings.backendOptions()));
        spec.setParameters(new TreeMap<>(rawParameters));
        spec.setClaim(parameters.claim().map(Object::toString).orElse(null));
        if (tcp != null) {
            spec.setExport(export(tcp, store.getSpec().getAgent()));
            spec.setConnect(connect(tcp));
        } else {
            spec.setExport(export(protocol.getNfs(), store.getSpec().getAgent()));
        }

        PillarVolumeState state = new PillarVolumeState();
        state.setMetadata(new ObjectMetaBuilder().withName(id.value()).withFinalizers(PillarVolumeState.FINALIZER).build());
        state.setSpec(spec);
        return state;
    }

    /**
     * Fails with INVALID_ARGUMENT when no PillarStore or PillarProtocol of these names exists: what a
     * static PersistentVolume names must (one that exists but is not ready is FAILED_PRECONDITION later).
     */
    void requireKnown(String store, String protocol) {
        if (inventory.store(store).isEmpty()) {
            throw CsiException.invalid("volume_context[" + pillar.controller.crd.StorageClassParameters.STORE + "]: no PillarStore "
                    + store + " exists");
        }
        if (inventory.protocol(protocol).isEmpty()) {
            throw CsiException.invalid("volume_context[" + pillar.controller.crd.StorageClassParameters.PROTOCOL + "]: no PillarProtocol "
                    + protocol + " exists");
        }
    }

    /**
     * Whether the store accepts a thin pool that does not zero new chunks, as its spec says now (not
     * frozen: an operator who accepts it after a refused create lets the retry succeed); a store
     * that is gone accepts nothing.
     */
    boolean acceptsNonZeroingThinPool(String storeName) {
        PillarStore store = inventory.store(storeName).orElse(null);
        return store != null && store.getSpec() != null && store.getSpec().getLvm() != null
                && Boolean.TRUE.equals(store.getSpec().getLvm().getAcceptNonZeroingThinPool());
    }

    private PillarStore store(String name) {
        PillarStore store = inventory.store(name).orElse(null);
        if (store == null) {
            throw CsiException.precondition("PillarStore " + name + " does not exist");
        }
        List<String> problems = SpecValidator.problems(store.getSpec());
        if (!problems.isEmpty()) {
            throw CsiException.precondition("PillarStore " + name + " is invalid: " + String.join("; ", problems));
        }
        List<Condition> conditions = store.getStatus() == null ? List.of() : store.getStatus().getConditions();
        Optional<Condition> discovered = Conditions.find(conditions, PillarStore.POOL_DISCOVERED);
        if (discovered.isEmpty() || !Condition.TRUE.equals(discovered.get().getStatus())
                || store.getStatus().getBackendKind() == null) {
            throw CsiException.precondition("PillarStore " + name + " is not ready: " + PillarStore.POOL_DISCOVERED + " is "
                    + discovered.map(c -> c.getStatus() + " (" + c.getReason() + ": " + c.getMessage() + ")").orElse("not reported yet"));
        }
        long generation = Objects.requireNonNullElse(store.getMetadata().getGeneration(), 0L);
        long observed = Objects.requireNonNullElse(store.getStatus().getObservedGeneration(), 0L);
        if (generation != observed) {
            throw CsiException.precondition("PillarStore " + name + " changed and is being checked again; retry shortly");
        }
        return store;
    }

    /** The protocol a new volume of this class would be served over (FAILED_PRECONDITION when it is missing or invalid). */
    ProtocolKind protocolKind(String name) {
        return protocol(name).kind();
    }

    private PillarProtocolSpec protocol(String name) {
        PillarProtocol protocol = inventory.protocol(name).orElse(null);
        if (protocol == null) {
            throw CsiException.precondition("PillarProtocol " + name + " does not exist");
        }
        List<String> problems = SpecValidator.problems(protocol.getSpec());
        if (!problems.isEmpty()) {
            throw CsiException.precondition("PillarProtocol " + name + " is invalid: " + String.join("; ", problems));
        }
        return protocol.getSpec();
    }

    /** The claim's annotations; a claim that is gone (deleted meanwhile) has none. */
    private Map<String, String> claimAnnotations(CreateParameters.Claim claim) {
        PersistentVolumeClaim pvc = inventory.claim(claim.namespace(), claim.name()).orElse(null);
        if (pvc == null) {
            LOG.info(() -> "claim " + claim + " does not exist (any more): no annotations to apply");
            return Map.of();
        }
        Map<String, String> annotations = pvc.getMetadata().getAnnotations();
        return annotations == null ? Map.of() : annotations;
    }

    /**
     * The export spec: the protocol's bind address, port and ACL setting; nodes dial the bind address,
     * or, when the target binds every address (0.0.0.0, ::), the agent's own IP address.
     */
    private VolumeExport export(NvmeofTcp tcp, String agentName) {
        String bind = tcp.getBindAddress();
        String traddr = Grammars.isWildcard(bind) ? agentAddress(agentName, "the protocol binds every address (" + bind
                + ")", "bindAddress") : bind;
        VolumeExport export = new VolumeExport(bind, tcp.getPort(), tcp.getAclEnabled(), traddr);
        export.setAuthRequired(tcp.authRequired() ? Boolean.TRUE : null);
        export.setTlsRequired(tcp.tlsRequired() ? Boolean.TRUE : null);
        return export;
    }

    /**
     * An NFS export spec: the server address the nodes mount from (the protocol's, else the agent's
     * own IP address), port 2049, always with its client list, root squashed and over TLS when the protocol says so.
     */
    private VolumeExport export(Nfs nfs, String agentName) {
        String server = nfs.getServerAddress() != null ? nfs.getServerAddress()
                : agentAddress(agentName, "the nfs protocol names no serverAddress", "nfs.serverAddress");
        VolumeExport export = new VolumeExport(server, PillarProtocol.NFS_PORT, true, server);
        export.setProtocol(ProtocolKind.NFS);
        export.setRootSquash(nfs.rootSquash() ? Boolean.TRUE : null);
        export.setTlsRequired(nfs.tlsRequired() ? Boolean.TRUE : null);
        return export;
    }

    /** The agent's own address, when it is an IP literal the nodes can dial; FAILED_PRECONDITION otherwise. */
    private String agentAddress(String agentName, String why, String field) {
        String host = locator.target(agentName).host();
        if (!Grammars.isIpLiteral(host) || Grammars.isWildcard(host)) {
            throw CsiException.precondition(why + " and agent " + agentName + " is reached by name (" + host
                    + "): set the protocol's " + field + " to the address nodes dial");
        }
        return host;
    }

    private static VolumeConnect connect(NvmeofTcp tcp) {
        VolumeConnect connect = new VolumeConnect();
        connect.setCtrlLossTmo(tcp.getCtrlLossTmo());
        connect.setReconnectDelay(tcp.getReconnectDelay());
        connect.setNrIoQueues(tcp.getNrIoQueues());
        return connect;
    }
}
