/**
 * The agent's own gauges, read when scraped: durable exports per store, and what the stores' host
 * commands tell (volumes, capacity, thin-pool usage), cached so that a scrape runs them at most once
 * per interval ({@link pillar.agent.metrics.StoreGauges}). The agent's timers live where they time:
 * configfs calls in {@code pillar.agent.configfs}, fencing refusals in {@code pillar.agent.fencing}.
 */
package pillar.agent.metrics;
