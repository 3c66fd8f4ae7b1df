/** The contract between controller and node carried in CSI's publish and volume contexts. */
package pillar.api.context;
