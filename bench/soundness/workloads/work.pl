
my %h; my @a;
for my $i (1..20000) { push @a, $i * 3 % 1001; $h{"k$i"} = [$i, "v$i"]; }
my @s = sort { $a <=> $b } @a; print "$s[0] $s[-1] ", scalar(@s), "\n";
my $str = join(",", map { $_ * 2 } grep { $_ % 7 == 0 } 1..100); print length($str), "\n";
(my $t = "Hello World") =~ s/(\w+)/\u\L$1/g; print "$t\n";
my @m = ("a1b22c333" =~ /(\d+)/g); print "@m\n";
my $ref = { list => [1..5], code => sub { return $_[0] ** 2 } };
print $ref->{code}->(12), " ", scalar @{$ref->{list}}, "\n";
printf("%-5s|%05.1f|%x\n", "ab", 3.14159, 255);
my $n = 0; $n += $_->[0] for values %h; print "$n\n";
local $@; eval { die "oops\n" }; print "caught $@";
my @w = split /\s+/, "the quick brown fox"; print join("-", reverse @w), "\n";
my %c; $c{$_}++ for split //, "mississippi"; print join("", map {"$_$c{$_}"} sort keys %c), "\n";
open(my $fh, '>', "perl.out") or die; print $fh "line$_\n" for 1..100; close $fh;
open($fh, '<', "perl.out") or die; my @l = <$fh>; close $fh; print scalar(@l), "\n";
print sprintf("%s", join ",", (sort { $b cmp $a } qw(pear apple fig))), "\n";
package Counter; sub new { my ($c, %a) = @_; bless { n => $a{start} // 0 }, $c } sub inc { $_[0]{n}++ }
package main; my $ct = Counter->new(start => 5); $ct->inc for 1..3; print $ct->{n}, "\n";
