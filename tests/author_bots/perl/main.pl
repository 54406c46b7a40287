#!/usr/bin/perl
# A bot in Perl with JSON::PP only (docs/protocol.md, "Languages"): draws from the stock and
# discards its last card that it may discard.
use strict;
use warnings;
use JSON::PP;

$| = 1;  # flush stdout after every print: a pipe is not a terminal
my $json = JSON::PP->new->canonical;
my %view;
while (my $line = <STDIN>) {
    my $msg = $json->decode($line);
    my $type = $msg->{type};
    if ($type eq 'hello') {
        print STDERR "perl bot: hello, seat $msg->{seat}\n";
        print $json->encode({type => 'hello', seq => $msg->{seq}, name => 'perlbot', version => '1'}), "\n";
    } elsif ($type eq 'request') {
        %view = $msg->{view} ? %{$msg->{view}} : (%view, %{$msg->{changed}});
        my $legal = $msg->{legal};
        my $decision;
        if ($legal->{phase} eq 'draw') {
            $decision = {draw => 'stock'};
        } else {
            my @hand = @{$view{hand}};
            for my $card (@{$legal->{must_keep}}) {
                for my $i (0 .. $#hand) {
                    if ($hand[$i] eq $card) { splice(@hand, $i, 1); last; }
                }
            }
            $decision = {plays => [], discard => $hand[-1]};
        }
        print $json->encode({type => 'decision', seq => $msg->{seq}, decision => $decision}), "\n";
    } elsif ($type eq 'match_end') {
        last;
    }
}
