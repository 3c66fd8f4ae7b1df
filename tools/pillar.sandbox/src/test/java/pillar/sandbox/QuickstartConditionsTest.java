package pillar.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;

import org.junit.jupiter.api.Test;

import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.PillarStorageClass;
import pillar.controller.crd.PillarStore;
import pillar.controller.crd.Reasons;

/** The conditions the sandbox waits out are the controller's own names, so a rename cannot go unseen. */
class QuickstartConditionsTest {

    @Test
    void everyConditionWhoseTrueIsAProblemIsTheControllersName() {
        assertThat(Quickstart.PROBLEMS).containsExactlyInAnyOrderElementsOf(
                Set.of(PillarStore.ORPHAN_VOLUMES, PillarAgent.DAMAGED_RECORDS, PillarAgent.PLAINTEXT_TRANSPORT));
    }

    @Test
    void aClassWithoutAnAclIsAFactNotAFault() {
        assertThat(Quickstart.SETTLED_WHEN_FALSE.get(PillarStorageClass.SINGLE_NODE_ACCESS)).containsExactly(Reasons.ACL_DISABLED);
    }
}
