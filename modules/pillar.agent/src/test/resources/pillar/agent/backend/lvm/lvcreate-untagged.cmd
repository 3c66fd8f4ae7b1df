lvcreate -y -n untagged -L 4194304b vgcap
