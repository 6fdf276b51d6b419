/**
 * Spring Security integration: the application's JWT decoder, its security context, and
 * its HTTP firewall.
 */
@NullMarked
package io.ratelimit.autoconfigure.security;

import org.jspecify.annotations.NullMarked;
