# apt.sh, sourced by this folder's scripts (which define say and die).
# apt_install PACKAGE[=VERSION]...: apt-get install them (as root). The versions are Debian
# bookworm's; on another release each package comes at that release's version. No init system is
# asked to start what is installed (policy-rc.d answers 101: refuse); the lists are updated when
# older than a day.
apt_install() {
  local codename want=("$@") policy=/usr/sbin/policy-rc.d created="" rc=0
  codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
  [ "$codename" = bookworm ] || want=("${want[@]%%=*}")
  [ "$(id -u)" = 0 ] || die "apt-get install ${want[*]} needs root (sudo)"
  say "apt-get install ${want[*]}"
  if [ ! -e "$policy" ]; then printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && created=$policy; fi
  if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages' -mmin -1440 2>/dev/null)" ]; then
    apt-get update -qq >&2 || rc=$?
  fi
  [ "$rc" != 0 ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${want[@]}" >&2 || rc=$?
  [ -z "$created" ] || rm -f "$created"
  [ "$rc" = 0 ] || die "apt-get install ${want[*]} failed (see above)"
}
