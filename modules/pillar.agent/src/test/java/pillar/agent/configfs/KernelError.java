package pillar.agent.configfs;

/**
 * An error number the fake kernel returns from a system call, with the C library's text for it (what
 * java.nio puts into its exceptions). Only the numbers nvmet and configfs return to the calls the
 * adapter makes.
 */
final class KernelError extends Exception {
    private static final long serialVersionUID = 1L;

    enum Code {
        EPERM("Operation not permitted"),
        ENOENT("No such file or directory"),
        EACCES("Permission denied"),
        EEXIST("File exists"),
        ENOTDIR("Not a directory"),
        EISDIR("Is a directory"),
        EINVAL("Invalid argument"),
        EBUSY("Device or resource busy"),
        ERANGE("Numerical result out of range"),
        ENAMETOOLONG("File name too long"),
        ENOTEMPTY("Directory not empty"),
        EADDRINUSE("Address already in use"),
        EADDRNOTAVAIL("Cannot assign requested address");

        final String strerror;

        Code(String strerror) {
            this.strerror = strerror;
        }
    }

    final Code code;

    KernelError(Code code) {
        super(code.name() + " (" + code.strerror + ")", null, false, false);
        this.code = code;
    }
}
