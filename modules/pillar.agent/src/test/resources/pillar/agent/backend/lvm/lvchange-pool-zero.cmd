lvchange --zero y vgcap/pool
