set -u
declare -A assoc
arr=()
f() { local x=$1; echo $(( x * 2 )); }
for i in $(seq 1 300); do arr+=("$i"); assoc[k$i]=$((i*i)); done
s=0; for v in "${arr[@]}"; do s=$((s + v)); done; echo sum $s
echo ${#assoc[@]} ${assoc[k17]}
str="Hello, World"; echo ${str,,} ${str^^} ${str/World/There} ${str:3:4} ${#str}
cat <<EOT | tr a-z A-Z
here doc $(f 21)
EOT
( cd /tmp && pwd ) ; echo sub $?
x=$(printf '%05d' 42); echo $x
case "$x" in 000*) echo zeros;; *) echo other;; esac
while read -r a b; do echo "$b $a"; done <<< "one two
three four"
printf '%s\n' c b a | sort | head -2
[[ "abc" =~ ^a(b)c$ ]] && echo match ${BASH_REMATCH[1]}
trap 'echo trapped' EXIT
eval 'y=5'; echo $((y ** 3))
IFS=: read -ra parts <<< "a:b:c"; echo ${parts[1]} ${#parts[@]}
shopt -s extglob; z=aaabbb; echo ${z##+(a)}
type f | head -1; declare -p arr | cut -c1-30
