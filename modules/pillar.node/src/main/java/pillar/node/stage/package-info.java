/**
 * The durable stage records NodeUnstageVolume and the other calls read back: their model, their
 * strict text format, and their atomic store in the node's state directory.
 */
package pillar.node.stage;
