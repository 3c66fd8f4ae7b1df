zpool create -f -m none -o cachefile=none tank /dev/loop0
