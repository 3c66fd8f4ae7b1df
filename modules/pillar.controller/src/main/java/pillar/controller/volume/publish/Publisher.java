package pillar.controller.volume.publish;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.DenyInitiatorRequest;
import pillar.api.agent.v1.ListExportsRequest;
import pillar.api.context.PublishContext;
import pillar.api.csi.v1.ControllerPublishVolumeResponse;
import pillar.api.csi.v1.VolumeCapability;
import pillar.runtime.server.CsiException;
import pillar.api.value.Nqn;
import pillar.api.value.TlsPsk;
import pillar.api.value.VolumeId;
import pillar.controller.agent.AgentClient;
import pillar.controller.agent.AgentException;
import pillar.controller.agent.AgentTarget;
import pillar.controller.auth.HostSecrets;
import pillar.controller.crd.NvmeofTcp;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.PillarVolumeStateSpec;
import pillar.controller.crd.Publication;
import pillar.controller.crd.VolumeConnect;
import pillar.controller.crd.VolumeExport;
import pillar.controller.crd.VolumePhase;
import pillar.controller.reconcile.loop.Events;
import pillar.controller.volume.AgentLocator;
import pillar.controller.volume.ExportSpecs;
import pillar.controller.volume.Inventory;
import pillar.controller.volume.Steps;
import pillar.controller.volume.request.Capabilities;
import pillar.controller.volume.state.Records;
import pillar.controller.volume.state.VolumeStates;

/**
 * ControllerPublishVolume and ControllerUnpublishVolume. A publication is recorded on the state,
 * with a new generation, by compare-and-swap, and the exclusivity of access modes is decided on
 * the record as it is at that swap: a volume written from one node (RWO, RWOP) is refused to a
 * second node until unpublished; read-only-many publications share. Then the agent allows (or
 * denies) the node's host NQN with that generation's token. A host NQN that two nodes report is
 * never published to (FAILED_PRECONDITION, and a Warning event on the volume's state): the target
 * would take both nodes for one host. A volume whose export requires authentication is published
 * as a host NQN and with DH-HMAC-CHAP keys of that publication alone, one whose export requires TLS with
 * a pre-shared key of that publication alone (see {@link HostAuthentication}); its publish context, which
 * only that node's kubelet is given, carries them. An NFS volume's
 * publication records the node's client address ({@link NodeAddresses}), the one its export admits,
 * read-only for a read-only publication ({@link Capabilities#readOnly}: nfsd then refuses that node's
 * writes whatever it mounts with) and read-write otherwise; read-write-many publications share the
 * volume, and no two nodes of one address do.
 */
public final class Publisher {
    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(Publisher.class.getName());
    private static final EnumSet<VolumePhase> EXPORTED = EnumSet.of(VolumePhase.Exported);

    private final VolumeStates states;
    private final Steps steps;
    private final AgentClient agents;
    private final AgentLocator locator;
    private final Inventory inventory;
    private final Events events;
    private final HostAuthentication auth;

    public Publisher(VolumeStates states, Steps steps, AgentClient agents, AgentLocator locator, Inventory inventory, Events events,
              HostAuthentication auth) {
        this.states = states;
        this.steps = steps;
        this.agents = agents;
        this.locator = locator;
        this.inventory = inventory;
        this.events = events;
        this.auth = auth;
    }

    public ControllerPublishVolumeResponse publish(VolumeId id, Nqn node, VolumeCapability capability, boolean readonly) {
        PillarVolumeState state = states.get(id).orElseThrow(() -> CsiException.notFound("volume " + id + " does not exist"));
        Capabilities.mismatch(capability, state.getSpec()).ifPresent(why -> {
            throw CsiException.invalid("volume_capability does not fit volume " + id + ": " + why);
        });
        Optional<String> shared = SharedHostNqns.sharing(node.value(), inventory.nodesWithHostNqn(node.value()));
        if (shared.isPresent()) {
            events.warning(state, SharedHostNqns.REASON, shared.get());
            throw CsiException.precondition("volume " + id + " cannot be published: " + shared.get());
        }
        VolumeExport export = usableExport(id, state);
        VolumePhase phase = Records.phase(state);
        if (phase != VolumePhase.Exported) {
            throw CsiException.precondition("volume " + id + (phase == VolumePhase.Deleting ? " is being deleted"
                    : " is not ready to publish (" + phase + "): CreateVolume has not completed"));
        }
        boolean nfs = export.nfs();
        Publication asked = new Publication(node.value(), readonly, capability.getAccessMode().getMode().name());
        Publication wanted = nfs ? asked.withClientAddress(NodeAddresses.clientAddress(inventory, node, export.getTraddr())) : asked;
        AgentTarget target = locator.target(state.getSpec().getAgent());
        auth.requireSupported(state.getSpec().getAgent(), export);
        List<String> replaced = new ArrayList<>();
        state = steps.advance(state, EXPORTED, VolumePhase.Exported, next -> {
            List<Publication> publications = next.getPublications();
            replaced.clear();
            for (Publication other : publications) {
                if (other.getNode().equals(wanted.getNode())) {
                    if (!other.equals(wanted)) {
                        throw CsiException.alreadyExists("volume " + id + " is published to this node as " + other
                                + ", not " + wanted);
                    }
                    if (nfs && !wanted.getClientAddress().equals(other.getClientAddress())) {
                        replaced.add(other.getClientAddress()); // the node's address changed since: admit the new one only
                    }
                } else if (!Capabilities.mayShare(wanted.getAccessMode(), other.getAccessMode(), nfs)) {
                    throw CsiException.precondition("volume " + id + " is published to node " + other
                            + "; a " + wanted.getAccessMode() + " publication cannot share it: unpublish it there first");
                } else if (nfs && wanted.getClientAddress().equals(other.getClientAddress())) {
                    throw CsiException.precondition("volume " + id + " is published to node " + other.getNode() + " at "
                            + other.getClientAddress() + ", the InternalIP of this node too: an NFS export cannot tell them apart");
                }
            }
            if (!replaced.isEmpty()) {
                publications.replaceAll(p -> p.getNode().equals(wanted.getNode()) ? wanted : p);
            } else if (!publications.contains(wanted)) {
                publications.add(wanted);
            }
        });
        Optional<HostSecrets> secrets = export.requiresAuth() ? Optional.of(auth.keys(state, node)) : Optional.empty();
        Optional<TlsPsk> psk = export.requiresTls() && !nfs ? Optional.of(auth.tlsKey(state, node)) : Optional.empty();
        // exclusive, except beside a live grant of this node made before per-publication keys (its NQN differs)
        boolean exclusive = Capabilities.exclusive(wanted.getAccessMode(), nfs)
                && !(secrets.isPresent() && auth.madeBefore(state, node));
        AllowInitiatorRequest.Builder allow = AllowInitiatorRequest.newBuilder().setToken(Records.token(state).toProto())
                .setVolumeId(id.value()).setExclusive(exclusive);
        if (nfs) {
            allow.setClientAddress(wanted.getClientAddress()).setReadOnly(Capabilities.readOnly(wanted.getAccessMode(), readonly));
        } else {
            allow.setHostNqn(HostAuthentication.connectsAs(export, id, node).value());
        }
        secrets.ifPresent(s -> allow.setAuth(s.toProto()));
        psk.ifPresent(k -> allow.setTlsPsk(k.value()));
        try {
            agents.allowInitiator(target, allow.build());
        } catch (AgentException e) {
            throw HostAuthentication.kernelRefusal(e, state.getSpec().getAgent());
        }
        for (String old : replaced) {
            deny(target, state, id, old, true);
        }
        java.util.Map<String, String> context = new java.util.TreeMap<>(nfs ? nfsContext(state, export, wanted)
                : context(state, export));
        secrets.ifPresent(s -> HostAuthentication.putContext(context, id, node, s));
        psk.ifPresent(k -> context.put(PublishContext.TLS_PSK, k.value()));
        return ControllerPublishVolumeResponse.newBuilder().putAllPublishContext(context).build();
    }

    /**
     * Unpublishes from one node, or from every node when none is named. The grant is withdrawn even
     * when no publication is recorded: a crash after the record's removal left it in place; unnamed,
     * every host the agent's export still admits is denied too (a retry after the record lost them).
     * The agent answers a deny once the node's connections are dropped and drained.
     */
    public void unpublish(VolumeId id, Optional<Nqn> node) {
        Optional<PillarVolumeState> found = states.get(id);
        if (found.isEmpty()) {
            return;
        }
        PillarVolumeState state = found.get();
        List<String> nodes = node.map(n -> List.of(n.value()))
                .orElseGet(() -> Records.publications(state).stream().map(Publication::getNode).toList());
        VolumePhase phase = Records.phase(state);
        boolean exported = Set.of(VolumePhase.Exporting, VolumePhase.Exported).contains(phase);
        if (nodes.isEmpty() && !exported) {
            return;
        }
        boolean nfs = Capabilities.nfs(state.getSpec());
        boolean authenticated = state.getSpec().getExport() != null && state.getSpec().getExport().requiresAuth();
        boolean keyed = state.getSpec().getExport() != null && state.getSpec().getExport().hasPublicationKeys();
        List<String> grantees = new ArrayList<>(nfs ? clientAddresses(state, nodes) : authenticated
                ? nodes.stream().flatMap(n -> auth.withdrawn(state, id, n).stream()).toList() : nodes);
        AgentTarget target = exported ? locator.target(state.getSpec().getAgent()) : null;
        if (node.isEmpty() && exported) {
            agents.listExports(target, ListExportsRequest.getDefaultInstance()).getExportsList().stream()
                    .filter(e -> e.getVolumeId().equals(id.value())).flatMap(e -> e.getAllowedHostsList().stream())
                    .filter(h -> !grantees.contains(h)).forEach(grantees::add);
            if (grantees.isEmpty()) {
                return;
            }
        }
        PillarVolumeState written = steps.advance(state, EnumSet.of(phase), phase,
                next -> next.getPublications().removeIf(p -> nodes.contains(p.getNode())));
        if (exported) {
            for (String grantee : grantees) {
                deny(target, written, id, grantee, nfs);
            }
        }
        if (keyed) {
            nodes.forEach(host -> auth.unstaged(state, Nqn.of(host)));
        }
    }

    private void deny(AgentTarget target, PillarVolumeState state, VolumeId id, String grantee, boolean nfs) {
        DenyInitiatorRequest.Builder deny = DenyInitiatorRequest.newBuilder().setToken(Records.token(state).toProto())
                .setVolumeId(id.value());
        agents.denyInitiator(target, (nfs ? deny.setClientAddress(grantee) : deny.setHostNqn(grantee)).build());
    }

    /**
     * The client addresses an NFS export admits for these nodes: as recorded on their publications;
     * for a node without one (a crash after the record's removal) its address now, when it can be
     * read; a grant left behind otherwise is revoked by the stale-grant poll ({@link GrantRevocation}).
     */
    private List<String> clientAddresses(PillarVolumeState state, List<String> nodes) {
        List<String> addresses = new ArrayList<>();
        for (String node : nodes) {
            Optional<String> recorded = Records.publications(state).stream().filter(p -> p.getNode().equals(node))
                    .map(Publication::getClientAddress).filter(java.util.Objects::nonNull).findFirst();
            if (recorded.isPresent()) {
                addresses.add(recorded.get());
                continue;
            }
            try {
                addresses.add(NodeAddresses.clientAddress(inventory, Nqn.of(node), state.getSpec().getExport().getTraddr()));
            } catch (CsiException unknown) {
                LOG.info(() -> "volume " + state.getMetadata().getName() + ": node " + node + " has no recorded publication and"
                        + " no address now (" + unknown.getMessage() + "); any grant left is revoked by the stale-grant poll");
            }
        }
        return addresses.stream().distinct().toList();
    }

    /**
     * What an NFS node needs to mount: the server, the exported path, its own address as the export admits it, and
     * {@code tls=tls1.3} when the export admits RPC-with-TLS only.
     */
    static java.util.Map<String, String> nfsContext(PillarVolumeState state, VolumeExport export, Publication publication) {
        String path = state.getStatus() == null ? null : state.getStatus().getExportPath();
        if (path == null) {
            throw CsiException.precondition("volume " + state.getMetadata().getName() + " has no recorded NFS export path");
        }
        java.util.Map<String, String> context = new java.util.HashMap<>(java.util.Map.of(PublishContext.PROTOCOL,
                PublishContext.PROTOCOL_NFS, PublishContext.NFS_SERVER, export.getTraddr(), PublishContext.NFS_EXPORT, path,
                PublishContext.NFS_CLIENT_ADDRESS, publication.getClientAddress()));
        if (export.requiresTls()) {
            context.put(PublishContext.TLS, PublishContext.TLS_13);
        }
        return java.util.Map.copyOf(context);
    }

    /** The recorded export spec, checked; none (or a broken one) is ExportSpecMissing: never guessed. */
    static VolumeExport usableExport(VolumeId id, PillarVolumeState state) {
        VolumeExport export = state.getSpec().getExport();
        String problem = export == null ? "it has none" : ExportSpecs.problem(export);
        if (problem != null) {
            throw CsiException.precondition(ExportSpecs.missing(id, problem));
        }
        return export;
    }

    /** What the node needs to connect: the PublishContext keys the node reads. */
    static java.util.Map<String, String> context(PillarVolumeState state, VolumeExport export) {
        String nqn = state.getStatus() == null ? null : state.getStatus().getSubsystemNqn();
        if (nqn == null) {
            throw CsiException.precondition("volume " + state.getMetadata().getName() + " has no recorded subsystem NQN");
        }
        java.util.Map<String, String> context = new java.util.TreeMap<>();
        context.put(PublishContext.NQN, nqn);
        context.put(PublishContext.TRANSPORT, "tcp");
        context.put(PublishContext.TRADDR, export.getTraddr());
        context.put(PublishContext.TRSVCID, String.valueOf(export.getPort()));
        if (export.requiresAuth()) {
            context.put(PublishContext.AUTH, PublishContext.AUTH_DHCHAP);
        }
        if (export.requiresTls()) {
            context.put(PublishContext.TLS, PublishContext.TLS_13);
        }
        PillarVolumeStateSpec spec = state.getSpec();
        VolumeConnect connect = spec.getConnect();
        if (connect != null) {
            List<String[]> settings = new ArrayList<>();
            settings.add(new String[] {PublishContext.CTRL_LOSS_TMO, str(boundedCtrlLossTmo(connect.getCtrlLossTmo()))});
            settings.add(new String[] {PublishContext.RECONNECT_DELAY, str(connect.getReconnectDelay())});
            settings.add(new String[] {PublishContext.NR_IO_QUEUES, str(connect.getNrIoQueues())});
            settings.stream().filter(kv -> kv[1] != null).forEach(kv -> context.put(kv[0], kv[1]));
        }
        return context;
    }

    /**
     * A frozen ctrl_loss_tmo within 1 to {@value NvmeofTcp#MAX_CTRL_LOSS_TMO} s; one outside (a state
     * frozen when -1, forever, was accepted) is left out, so that the node uses the kernel's 600 s.
     */
    static Integer boundedCtrlLossTmo(Integer frozen) {
        return frozen == null || frozen < 1 || frozen > NvmeofTcp.MAX_CTRL_LOSS_TMO ? null : frozen;
    }

    private static String str(Integer value) {
        return value == null ? null : value.toString();
    }
}
