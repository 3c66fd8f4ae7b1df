zfs version
