#!/usr/bin/env bash
# Checks the images' package lists against what they stand for:
#  - docker/packages-build.txt: every package is in .ci/packages.txt, except those marked
#    "# extra:" (which must not be);
#  - docker/packages-runtime.txt: the packages not marked "# extra:" are exactly the Debian
#    packages of the shared libraries the given mixforge binary names (readelf -d NEEDED).
# usage: check_image_packages.sh MIXFORGE_BINARY. Exit 77 (skipped) without readelf or dpkg.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
binary=${1:?usage: check_image_packages.sh MIXFORGE_BINARY}
for tool in readelf dpkg-query ldconfig; do
  if ! command -v "$tool" >/dev/null; then
    echo "check_image_packages: skipped: $tool not found (a Debian machine is needed)"
    exit 77
  fi
done

# "name" or "name extra" per listed package.
list() { sed -E -e 's/#[[:space:]]*extra:.*/ extra/' -e 's/#.*//' "$1" | awk 'NF { print $1, $2 }'; }
ci_packages=$(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$root/.ci/packages.txt" | grep -v '^$' | sort -u)
status=0

while read -r name extra; do
  in_ci=no
  grep -qxF "$name" <<<"$ci_packages" && in_ci=yes
  if [ -z "$extra" ] && [ $in_ci = no ]; then
    echo "docker/packages-build.txt: $name is not in .ci/packages.txt (add it there, or mark it '# extra: why')" >&2
    status=1
  elif [ -n "$extra" ] && [ $in_ci = yes ]; then
    echo "docker/packages-build.txt: $name is in .ci/packages.txt: drop its '# extra:' mark" >&2
    status=1
  fi
done < <(list "$root/docker/packages-build.txt")

# The package owning each NEEDED library, found where the dynamic linker finds it.
arch_dir=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
needed=()
while read -r soname; do
  path=$(ldconfig -p | awk -v s="$soname" -v a="$arch_dir" '$1 == s && index($NF, a) && !p { p = $NF } END { print p }')
  if [ -z "$path" ]; then
    echo "check_image_packages: $soname (NEEDED by $binary) not found by ldconfig" >&2
    status=1
    continue
  fi
  # dpkg knows a library by the path its package installed (/lib or /usr/lib: merged /usr).
  owner=""
  for p in "$path" "$(readlink -f "$path")" "/usr${path#/usr}" "${path#/usr}"; do
    owner=$(dpkg-query -S "$p" 2>/dev/null | awk -F: 'NR == 1 { print $1 }') || true
    [ -n "$owner" ] && break
  done
  if [ -z "$owner" ]; then
    echo "check_image_packages: no Debian package owns $path ($soname)" >&2
    status=1
    continue
  fi
  needed+=("$owner")
done < <(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
needed_sorted=$(printf '%s\n' "${needed[@]}" | sort -u)
listed_sorted=$(list "$root/docker/packages-runtime.txt" | awk '$2 == "" { print $1 }' | sort -u)
if [ "$needed_sorted" != "$listed_sorted" ]; then
  echo "docker/packages-runtime.txt differs from the packages of the libraries $binary names:" >&2
  diff <(echo "$listed_sorted") <(echo "$needed_sorted") | sed -n 's/^< /  listed, not needed: /p; s/^> /  needed, not listed: /p' >&2
  status=1
fi
[ $status = 0 ] && echo "check_image_packages: build list within .ci/packages.txt; runtime list = $(echo $needed_sorted)"
exit $status
