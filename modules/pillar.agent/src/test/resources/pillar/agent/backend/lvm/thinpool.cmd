lvcreate -y --type thin-pool -L 200m -n pool vgcap
