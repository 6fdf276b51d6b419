# Splits the CPU samples of a load-test variant (async-profiler's collapsed stacks, one
# "frame;frame;... count" line per distinct stack) into where they were spent, for the
# report of `PROFILE=1 scripts/load-test.sh`.
#
#   awk -v variant=enabled -v requests=N -v cpu_us=C -f profile.awk enabled.round*.collapsed
#
# requests: the requests of the profiled rounds; cpu_us: their mean CPU µs per request. A
# sample's share of all samples, times cpu_us, is its µs per request. Prints one line,
# "variant cpu_us own_us write_us request_us other_us", then "part: us" lines for the
# largest calls within the limiter's own frames.

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
		if (frames[i] ~ /io\/ratelimit\/autoconfigure\/web\/RateLimitFilter\.doFilterInternal$/) {
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
			part = (filter < n) ? short(frames[filter + 1]) : "RateLimitFilter.doFilterInternal"
			if (part == "RateLimiter.evaluate" && filter + 2 <= n) {
				part = part " > " short(frames[filter + 2])
			}
			parts[part] += count
			next
		}
	}
	if (stack ~ /sun\/nio\/ch\/SocketDispatcher\.write/) {
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
	us = cpu_us / total
	printf "%s %.1f %.2f %.2f %.2f %.2f\n", variant, cpu_us, own * us, write * us, request * us, other * us
	for (shown = 0; shown < 8; shown++) {
		best = ""
		for (p in parts) {
			if (best == "" || parts[p] > parts[best]) {
				best = p
			}
		}
		if (best == "" || parts[best] * us < 0.05) {
			break
		}
		printf "%s: %.2f\n", best, parts[best] * us
		delete parts[best]
	}
}
