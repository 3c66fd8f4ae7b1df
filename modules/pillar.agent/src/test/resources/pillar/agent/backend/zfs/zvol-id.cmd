/lib/udev/zvol_id /dev/zd0
