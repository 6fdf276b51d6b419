# Splits the samples of a load-test variant (async-profiler's collapsed stacks, one
# "frame;frame;... count" line per distinct stack) into where they were spent, for the
# report of `PROFILE=1 scripts/load-test.sh` (CPU) and `PROFILE=alloc` (allocation).
#
#   awk -v variant=enabled -v requests=N -v cpu_us=C -f profile.awk enabled.round*.collapsed
#   awk -v variant=enabled -v requests=N -v mode=alloc -f profile.awk enabled.round*.collapsed
#
# requests: the requests of the profiled rounds; cpu_us: their mean CPU µs per request. A
# CPU sample's share of all samples, times cpu_us, is its µs per request; an allocation
# stack's count is bytes (async-profiler's "total"), so divided by requests it is bytes per
# request. Prints one line, "variant total own write_or_fields request other", then
# "part: value" lines for the largest calls within the limiter's own frames. The fourth
# column is the socket writes (CPU) or Tomcat's encoding of the response fields (alloc).

function short(frame) {
	sub(/^.*\//, "", frame)
	return frame
}

{
	count = $NF
	stack = $0
	sub(/ [0-9]+$/, "", stack)
	total += count
	n = split(stack, frames, ";")
	filter = 0
	for (i = 1; i <= n; i++) {
		if (frames[i] ~ /io\/ratelimit\/autoconfigure\/web\/RateLimitFilter\.doFilter$/) {
			filter = i
			break
		}
	}
	# The limiter's own frames: the filter, but not the rest of the chain it calls.
	if (filter > 0) {
		downstream = 0
		for (i = filter + 1; i <= n; i++) {
			if (frames[i] ~ /ApplicationFilterChain\.doFilter$/) {
				downstream = 1
				break
			}
		}
		if (!downstream) {
			own += count
			# Named by the call within the filter, and within the decision when it is one.
			first = filter + 1
			if (first <= n && short(frames[first]) == "RateLimitFilter.decide") {
				first++
			}
			part = (first <= n) ? short(frames[first]) : "RateLimitFilter.doFilter"
			if (part == "RateLimiter.evaluate" && first + 1 <= n) {
				part = part " > " short(frames[first + 1])
			}
			parts[part] += count
			next
		}
	}
	if (mode != "alloc" && stack ~ /sun\/nio\/ch\/SocketDispatcher\.write/) {
		write += count
	} else if (mode == "alloc" && stack ~ /Http11OutputBuffer\.write;org\/apache\/tomcat\/util\/buf\/MessageBytes\.toBytes/) {
		write += count
	} else if (stack ~ /org\/apache\/coyote\/http11\/Http11Processor\.service/) {
		request += count
	} else {
		other += count
	}
}

END {
	if (total == 0 || requests == 0) {
		exit 1
	}
	us = (mode == "alloc") ? 1 / requests : cpu_us / total
	if (mode == "alloc") {
		printf "%s %.0f %.0f %.0f %.0f %.0f\n", variant, total * us, own * us, write * us, request * us, other * us
	} else {
		printf "%s %.1f %.2f %.2f %.2f %.2f\n", variant, cpu_us, own * us, write * us, request * us, other * us
	}
	for (shown = 0; shown < 8; shown++) {
		best = ""
		for (p in parts) {
			if (best == "" || parts[p] > parts[best]) {
				best = p
			}
		}
		if (best == "" || parts[best] * us < ((mode == "alloc") ? 1 : 0.05)) {
			break
		}
		printf (mode == "alloc") ? "%s: %.0f\n" : "%s: %.2f\n", best, parts[best] * us
		delete parts[best]
	}
}
