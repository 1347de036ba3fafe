# The Debian packages tweetcli needs, sourced by Scripts/install and Scripts/test.

# The build: libxcrypt (passwords), libarchive (Twitter archives), libpq (PostgreSQL), libcurl
# (tweetcli-fetch's URLSession), and the image libraries with libcrypto's SHA-256 and libchafa's
# mosaics (photos).
build_packages=(libcrypt-dev libarchive-dev libpq-dev libcurl4-openssl-dev
  libpng-dev libturbojpeg0-dev libwebp-dev libgif-dev libssl-dev libchafa0)
# Release builds link with gold, which binutils holds until Debian 13 makes it a package of its own.
command -v ld.gold >/dev/null || build_packages+=(binutils-gold)

# The tests: tmux, vim and less (terminal tests), zsh and fish (their completion scripts at Tab),
# strace (fault injection), zip (archives as Twitter packs them), PostgreSQL (a throwaway server),
# Python's venv (the twtxt client), valgrind (the start-up instruction budgets), and a sixel
# and a kitty terminal with a screen to take pictures of (xterm, kitty with Mesa's software
# OpenGL, Xvfb, ImageMagick's import), screen and an ssh server to run the full-screen app
# through, openssl to make the certificates of a PostgreSQL server over TLS, PgBouncer, and
# iproute2's ip for clients and a server in network namespaces of their own.
test_packages=(tmux vim less zsh fish strace zip postgresql python3-venv valgrind xterm xvfb imagemagick kitty
  libgl1-mesa-dri screen openssh-server openssl pgbouncer iproute2)

# Installs whichever of the named packages are missing, with sudo unless run as root.
install_packages() {
  local missing=()
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -q
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
}
