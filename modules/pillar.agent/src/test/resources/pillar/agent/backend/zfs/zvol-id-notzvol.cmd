/lib/udev/zvol_id /dev/loop0
