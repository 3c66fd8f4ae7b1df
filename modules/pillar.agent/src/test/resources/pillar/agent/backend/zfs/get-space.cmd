zfs get -Hp -o property,value available,used tank/k8s
