let lines = []
for i in range(1, 2000)
  call add(lines, 'line ' . i . ' ' . repeat('x', i % 7))
endfor
call setline(1, lines)
%s/x\+$/[&]/e
g/^line 1[0-9]*5 /d
sort! n /line /
let d = {'a': 1, 'b': [1, 2, 3]}
let d.c = map(copy(d.b), 'v:val * 2')
call append(0, [string(d), string(line('$')), toupper(getline(5)), printf('%05d', 42)])
normal! gg3Jyyp
let text = join(getline(1, 10), "\n")
call writefile([strlen(text), matchstr('abc123', '\d\+'), split('a:b:c', ':')[1], sha256('abc')[:8]], 'vim.out')
write! vim.txt
qall!
