package pillar.agent.backend;

import pillar.runtime.exec.CommandFailedException;

/**
 * What a create command ({@code lvcreate}, {@code zfs create}) did, where the backend decides what
 * follows: it made the volume, or the tool refused it because the name is taken (the backend reads
 * the existing one to adopt it or report a conflict) or for want of room (the backend tells a size
 * that never fits from a full pool). Every other failure the command class throws itself.
 */
public sealed interface Creation {
    /** @param rounded the tool says it rounded the size, so the size asked for is not the size made */
    public record Made(boolean rounded) implements Creation {
    }

    /** A volume or dataset of that name exists already; {@code cause} is the tool's refusal. */
    public record NameTaken(CommandFailedException cause) implements Creation {
    }

    /** Not enough free space for it; {@code cause} is the tool's refusal. */
    public record NoRoom(CommandFailedException cause) implements Creation {
    }
}
