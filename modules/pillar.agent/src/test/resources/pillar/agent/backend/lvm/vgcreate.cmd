vgcreate vgcap /dev/loop0
