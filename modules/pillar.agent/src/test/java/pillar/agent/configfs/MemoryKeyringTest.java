package pillar.agent.configfs;

import pillar.runtime.keys.Keyring;

/** {@link KeyringContract} on the tests' keyring in memory. */
class MemoryKeyringTest extends KeyringContract {
    private final MemoryKeyring keyring = new MemoryKeyring();

    @Override
    Keyring keyring() {
        return keyring;
    }
}
