{ s += $1; a[$1 % 97]++; t = t substr($0, 1, 1) }
END {
  n = asorti(a, b); print s, n, length(t)
  printf "%s\n", toupper(sprintf("%x", s))
  split("a,b,c", x, ","); print x[2]
  print gensub(/([0-9])/, "<\\1>", "g", "a1b22")
  m = match("foobar", /o+b/); print m, RSTART, RLENGTH
  cmd = "echo piped"; cmd | getline line; close(cmd); print line
  print strftime("%Y", 0, 1), sprintf("%5.2f", 3.14159), index("hello", "ll")
}
