package pillar.controller.volume;

import java.time.Clock;
import java.time.Duration;

import pillar.runtime.server.VolumeLocks;
import pillar.controller.agent.AgentClient;
import pillar.controller.auth.PublicationKeys;
import pillar.controller.auth.VolumeStageSecrets;
import pillar.controller.reconcile.AgentTargets;
import pillar.controller.reconcile.loop.Events;
import pillar.controller.reconcile.ExportAudit;
import pillar.controller.volume.create.AbandonedCreates;
import pillar.controller.volume.create.Adopter;
import pillar.controller.volume.create.LifecycleEnd;
import pillar.controller.volume.create.Planner;
import pillar.controller.volume.create.Provisioner;
import pillar.controller.volume.publish.GrantRevocation;
import pillar.controller.volume.publish.HostAuthentication;
import pillar.controller.volume.publish.Publisher;
import pillar.controller.volume.read.CapacityReader;
import pillar.controller.volume.read.VolumeHealthReader;
import pillar.controller.volume.state.VolumeRecords;
import pillar.controller.volume.state.VolumeStates;

/**
 * The volume state machine, assembled once per process: the states over their {@link VolumeRecords},
 * the {@link Steps} that fence every agent call, and the operations on them ({@link Provisioner},
 * {@link Adopter}, {@link Publisher}, {@link Expander}, {@link LifecycleEnd}, {@link AbandonedCreates}) and reads
 * ({@link CapacityReader}, {@link VolumeHealthReader}). It reaches the cluster only through its
 * ports ({@link VolumeRecords}, {@link Inventory}, {@link Events}), the agents through
 * {@link AgentClient}; {@code pillar.controller.csi.ControllerService} and {@link VolumeStateReconciler} share it, and so
 * share its {@code locks} and {@code leading}.
 */
public final class Volumes {
    final VolumeLocks locks;
    final Leading leading;
    final Events events;
    final Clock clock;
    final VolumeStates states;
    final Steps steps;
    final AgentClient agents;
    final AgentLocator locator;
    final HostAuthentication auth;
    final LifecycleEnd end;
    final Provisioner provisioner;
    final Adopter adopter;
    final Publisher publisher;
    final Expander expander;
    final CapacityReader capacity;
    final VolumeHealthReader health;
    final AbandonedCreates abandoned;
    private final GrantRevocation grantRevocation;

    /**
     * @param writes         told of every write to a state (ListVolumes' catalog awaits them)
     * @param locks          held per volume by each operation; shared with whatever else acts on volumes
     * @param leading        whether this replica leads now (checked in every step's compare-and-swap)
     * @param publicationKeys each publication's DH-HMAC-CHAP keys (used only for volumes whose export requires auth)
     * @param stageSecrets   the volumes' stage Secrets (likewise)
     * @param abandonedGrace how old an incomplete create whose claim is gone must be before it is removed
     */
    public Volumes(VolumeRecords records, VolumeStates.Writes writes, Inventory inventory, AgentTargets targets,
                   AgentClient agents, VolumeLocks locks, Leading leading, Events events, PublicationKeys publicationKeys,
                   VolumeStageSecrets stageSecrets, Clock clock, Duration abandonedGrace) {
        this.locks = locks;
        this.leading = leading;
        this.events = events;
        this.clock = clock;
        this.states = new VolumeStates(records, writes);
        this.steps = new Steps(states, leading);
        this.agents = agents;
        this.locator = new AgentLocator(inventory, targets);
        this.auth = new HostAuthentication(agents, locator, publicationKeys, stageSecrets);
        this.end = new LifecycleEnd(states, steps, agents, auth);
        Planner planner = new Planner(inventory, locator, auth);
        this.provisioner = new Provisioner(states, steps, agents, locator, planner, auth, end);
        this.adopter = new Adopter(states, planner, provisioner, end);
        this.publisher = new Publisher(states, steps, agents, locator, inventory, events, auth);
        this.expander = new Expander(states, steps, agents, locator);
        this.capacity = new CapacityReader(inventory, agents, locator);
        this.health = new VolumeHealthReader(agents, locator);
        this.abandoned = new AbandonedCreates(inventory, states, end, locator, locks, events, clock, abandonedGrace);
        this.grantRevocation = new GrantRevocation(agents, events, states, locks);
    }

    /**
     * What each PillarStore poll does with the agent's exports: revoke the grants no publication holds and
     * repair exports that drifted in the kernel. One for the controller: it remembers the drift it saw.
     */
    public ExportAudit grantRevocation() {
        return grantRevocation;
    }

    public VolumeStates states() {
        return states;
    }

    public Provisioner provisioner() {
        return provisioner;
    }

    /** Adopts the existing volume a static PersistentVolume names, on its first publish. */
    public Adopter adopter() {
        return adopter;
    }

    public Publisher publisher() {
        return publisher;
    }

    public Expander expander() {
        return expander;
    }

    public CapacityReader capacity() {
        return capacity;
    }

    public VolumeHealthReader health() {
        return health;
    }

    /** The per-volume locks every operation on a volume holds, in the CSI service and the reconciler alike. */
    public VolumeLocks locks() {
        return locks;
    }

    /** The agents, as every operation calls them. */
    public AgentClient agents() {
        return agents;
    }

    /** How to reach a PillarAgent, by name (FAILED_PRECONDITION when it cannot be reached now). */
    public pillar.controller.agent.AgentTarget agentTarget(String agentName) {
        return locator.target(agentName);
    }

    /** Whether this replica leads now. */
    public Leading leading() {
        return leading;
    }
}
