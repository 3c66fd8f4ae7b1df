pvcreate -y /dev/loop0
