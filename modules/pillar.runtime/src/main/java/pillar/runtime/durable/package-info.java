/** Crash-safe files: temp file, fsync, rename, fsync of the directory. */
package pillar.runtime.durable;
