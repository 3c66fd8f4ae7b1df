lvm version
