/**
 * Reads from the agents that change nothing: the stores' capacity (GetCapacity) and a volume's condition.
 */
package pillar.controller.volume.read;
