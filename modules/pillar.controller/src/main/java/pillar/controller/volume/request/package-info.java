/**
 * What a CSI request may ask of a volume, checked: its capabilities per protocol and its size. Pure functions.
 */
package pillar.controller.volume.request;
