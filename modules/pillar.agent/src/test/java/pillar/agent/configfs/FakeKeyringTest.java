package pillar.agent.configfs;

import pillar.runtime.keys.Keyring;
import pillar.testkit.FakeKeyring;

/** {@link KeyringContract} on the tests' keyring in memory. */
class FakeKeyringTest extends KeyringContract {
    private final FakeKeyring keyring = new FakeKeyring();

    @Override
    Keyring keyring() {
        return keyring;
    }
}
