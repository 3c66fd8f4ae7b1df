lvextend -L 10737418240b vgcap/missing
