lvchange --zero n vgcap/pool
