/**
 * The agent's own gauges: durable exports per store, read when scraped, and what the stores' host
 * commands tell (volumes, capacity, thin-pool usage), refreshed by a background thread so that a
 * scrape never runs a command ({@link pillar.agent.metrics.StoreGauges}). The agent's timers live where
 * they time: configfs calls in {@code pillar.agent.configfs}, fencing refusals in {@code pillar.agent.fencing}.
 */
package pillar.agent.metrics;
