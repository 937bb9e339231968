# Sourced by the setup scripts: shell commands run inside bubblewrap (Debian's `bubblewrap`), which
# needs unprivileged user namespaces. Installs it when missing, then checks that it can start a sandbox.
if [ "${WEFT_SHELL_SANDBOX:-}" != "off" ]; then
  if ! command -v bwrap >/dev/null 2>&1; then
    echo "weft: installing Debian's bubblewrap for the shell sandbox" >&2
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    ($SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq bubblewrap) >&2 \
      || echo "weft: could not install bubblewrap (apt-get install bubblewrap)" >&2
  fi
  if ! bwrap --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
      --unshare-all --unshare-user --uid 65534 --gid 65534 --die-with-parent -- true >/dev/null 2>&1; then
    echo "weft: bubblewrap cannot start a sandbox here, so shell.exec will refuse to run commands." >&2
    echo "weft: fix: apt-get install bubblewrap, and allow user namespaces: sysctl -w kernel.unprivileged_userns_clone=1" >&2
    echo "weft: (on Ubuntu also sysctl -w kernel.apparmor_restrict_unprivileged_userns=0), or set WEFT_SHELL_SANDBOX=off to run commands unisolated." >&2
  fi
fi
