/**
 * The kernel's key retention service as pillar-csi uses it: NVMe/TCP TLS pre-shared keys (key type
 * {@code psk}) in a keyring, where the kernel's TLS handshake ({@code tlshd}) finds them. The agent keeps
 * the target's keys in the kernel's {@code .nvme} keyring, the node the host's in a keyring of its own
 * ({@link pillar.runtime.keys.Keyring}, {@link pillar.runtime.keys.KernelKeyring}).
 */
package pillar.runtime.keys;
