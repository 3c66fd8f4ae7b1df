/** The node's configuration: its identity, its kernel roots and its settings, checked at start. */
package pillar.node.config;
